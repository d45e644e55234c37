import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LoadJob } from '../load/jobs.ts';
import { COMPILE_CACHE } from './cluster.ts';

const ENTRY = fileURLToPath(new URL('../load/main.ts', import.meta.url));

export interface LoadRun<R> {
  /** Resolves with the job's result; rejects if the process fails. */
  result: Promise<R>;
  /** Resolves with the next progress line the generator prints (e.g. {"event":"open"}). */
  nextEvent(): Promise<Record<string, unknown>>;
  /** Writes one line to the generator's stdin (the idle-streams job waits for one). */
  tell(line: string): void;
  pid: number;
}

/** Starts the load generator as a separate Node process on one job. */
export function startLoad<R>(job: LoadJob): LoadRun<R> {
  const child = spawn(process.execPath, [ENTRY, JSON.stringify(job)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_COMPILE_CACHE: COMPILE_CACHE },
  });
  const events: Array<Record<string, unknown>> = [];
  const waiters: Array<(e: Record<string, unknown>) => void> = [];
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  let result: R | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line) as Record<string, unknown>;
    if ('result' in msg) result = msg.result as R;
    else if (waiters.length) waiters.shift()!(msg);
    else events.push(msg);
  });
  return {
    pid: child.pid!,
    result: new Promise<R>((resolve, reject) =>
      child.once('close', (code) =>
        code === 0 && result !== undefined
          ? resolve(result)
          : reject(new Error(`load generator (${job.kind}) exited with ${code}: ${stderr}`)),
      ),
    ),
    nextEvent: () =>
      events.length ? Promise.resolve(events.shift()!) : new Promise((resolve) => waiters.push(resolve)),
    tell: (line) => child.stdin.write(`${line}\n`),
  };
}

export function runLoad<R>(job: LoadJob): Promise<R> {
  return startLoad<R>(job).result;
}
