import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root, for spawning an app's entry point. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface RunningProcess {
  child: ChildProcess;
  /** Every line printed so far (stdout and stderr), parsed as JSON when it is a log line. */
  lines: string[];
  logs(): Array<Record<string, unknown>>;
  signal(sig: NodeJS.Signals): void;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
}

/**
 * Starts a real process (fault tests kill, freeze and restart them). Always call `signal('SIGKILL')`
 * in afterAll: a leaked child outlives the test run.
 */
export function startProcess(entry: string, env: Record<string, string>): RunningProcess {
  const child = spawn(process.execPath, [entry], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(line);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, sig) => resolve(code ?? sig ?? -1)),
  );
  return {
    child,
    lines,
    logs: () =>
      lines.flatMap((l) => {
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
    signal: (sig) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    },
    exited,
  };
}
