import { startProcess, waitFor, type RunningProcess } from '@switchyard/testing';
import type { WorkerNote } from './check-types.ts';
import { freePort } from './free-port.ts';

export type Role = 'gateway' | 'worker' | 'pusher';

const ENTRY: Record<Role, string> = {
  gateway: 'apps/gateway/src/main.ts',
  worker: 'chaos/src/chaos-worker.ts',
  pusher: 'apps/pusher/src/main.ts',
};

export interface Member {
  name: string;
  role: Role;
  port: number;
  generation: number;
  proc: RunningProcess | null;
  /** Resolves when the current generation is ready (a gateway answers /readyz, a worker runs). */
  ready: Promise<void>;
}

/** Settings of the chaos run's processes: short leases and retries so recovery fits a short run. */
export const LEASE_MS = 3000;
/** Every process's bound on a Postgres answer (PG_STATEMENT_TIMEOUT_MS), short enough to hit. */
export const STATEMENT_TIMEOUT_MS = 2000;

function roleEnv(role: Role, member: Member): Record<string, string> {
  switch (role) {
    case 'gateway':
      return {
        PORT: String(member.port),
        LOG_LEVEL: 'warn',
        RATE_LIMIT_TENANT_PER_SEC: '100000',
        RATE_LIMIT_KEY_PER_SEC: '100000',
        SSE_MAX_STREAMS_PER_CREDENTIAL: '100000',
        BLOCKING_TIMEOUT_MS: '8000',
        SSE_HEARTBEAT_MS: '1000',
        SHUTDOWN_GRACE_MS: '200',
      };
    case 'worker':
      return {
        WORKER_ID: `${member.name}-g${member.generation}`,
        LOG_LEVEL: 'info',
        WORKER_CONCURRENCY: '16',
        // Below the clients' count, so runs are parked and promoted through every fault too.
        TENANT_MAX_RUNNING: '3',
        LEASE_MS: String(LEASE_MS),
        REAPER_INTERVAL_MS: '500',
        DISPATCH_GRACE_MS: '2000',
        RETRY_BASE_MS: '100',
        RETRY_MAX_MS: '1000',
        MAX_ATTEMPTS: '20',
        PG_POOL_MAX: '6',
      };
    case 'pusher':
      return {
        PUSHER_ID: `${member.name}-g${member.generation}`,
        LOG_LEVEL: 'warn',
        PUSHER_OPS_PORT: '0',
        PUSHER_CONCURRENCY: '8',
        // One receiver for every tenant: half the slots each, so the caps are exercised but the
        // pushes still settle within the run's deadline.
        PUSHER_MAX_IN_FLIGHT_PER_TENANT: '4',
        PUSHER_MAX_IN_FLIGHT_PER_HOST: '4',
        // Two seconds for a send to start after its claim (it must end inside the lock).
        PUSH_TIMEOUT_MS: '2000',
        PUSH_LOCK_MS: '5000',
        PUSH_POLL_MS: '200',
        PUSH_RETRY_BASE_MS: '50',
        PUSH_RETRY_MAX_MS: '1000',
        PUSH_MAX_ATTEMPTS: '100',
      };
  }
}

/** The platform's processes: start, SIGKILL, SIGSTOP/SIGCONT, restart under the same name. */
export class Fleet {
  readonly members: Member[] = [];
  /** Every process ever started (dead generations too): their logs explain lease losses. */
  private readonly all: Array<{ proc: RunningProcess; name: string }> = [];
  private readonly env: Record<string, string>;

  constructor(env: Record<string, string>) {
    this.env = env;
  }

  async add(role: Role, name: string): Promise<Member> {
    const port = role === 'gateway' ? await freePort() : 0;
    const member: Member = { name, role, port, generation: 0, proc: null, ready: Promise.resolve() };
    this.members.push(member);
    void this.start(member);
    return member;
  }

  byRole(role: Role): Member[] {
    return this.members.filter((m) => m.role === role);
  }

  /** Starts the member's next generation; `member.ready` tells when it is up. */
  start(member: Member): Promise<void> {
    member.generation++;
    const proc = startProcess(ENTRY[member.role], { ...this.env, ...roleEnv(member.role, member) });
    member.proc = proc;
    this.all.push({ proc, name: `${member.name}-g${member.generation}` });
    const up =
      member.role === 'gateway'
        ? async () => (await fetch(`http://127.0.0.1:${member.port}/readyz`).catch(() => null))?.ok
        : member.role === 'worker'
          ? () => proc.lines.some((l) => l.includes('worker running'))
          : () => true;
    member.ready = waitFor(up, { timeoutMs: 90_000, intervalMs: 100, what: `${member.name} ready` }).then(
      () => undefined,
      (err: unknown) => {
        throw new Error(`${member.name} did not start:\n${proc.lines.slice(-20).join('\n')}`, { cause: err });
      },
    );
    // Awaited later (allReady, heal); meanwhile a failed start must not be an unhandled rejection.
    member.ready.catch(() => undefined);
    return member.ready;
  }

  /** SIGKILL; resolves once the process is gone. Returns its pid. */
  async kill(member: Member): Promise<number | undefined> {
    const proc = member.proc;
    member.proc = null;
    if (!proc) return undefined;
    proc.signal('SIGCONT');
    proc.signal('SIGKILL');
    await proc.exited;
    return proc.child.pid;
  }

  freeze(member: Member): number | undefined {
    member.proc?.signal('SIGSTOP');
    return member.proc?.child.pid;
  }

  thaw(member: Member): void {
    member.proc?.signal('SIGCONT');
  }

  /** Restarts every member that is not running (after the faults stop). */
  async heal(): Promise<void> {
    for (const m of this.members) {
      m.proc?.signal('SIGCONT');
      if (!m.proc || m.proc.child.exitCode !== null || m.proc.child.signalCode !== null) void this.start(m);
    }
    await this.allReady();
  }

  async allReady(): Promise<void> {
    await Promise.all(this.members.map((m) => m.ready));
  }

  /** What the workers logged about runs they gave up, with their pids. */
  workerNotes(): WorkerNote[] {
    const notes: WorkerNote[] = [];
    for (const { proc } of this.all) {
      const pid = proc.child.pid ?? -1;
      for (const line of proc.logs()) {
        if (typeof line.taskId !== 'string' || typeof line.msg !== 'string') continue;
        if (!/agent run (stopped|failed)|lease/.test(line.msg)) continue;
        notes.push({
          pid,
          taskId: line.taskId,
          msg: line.msg,
          ...(typeof line.reason === 'string' ? { reason: line.reason } : {}),
          ...(errorMessage(line.err) ? { err: errorMessage(line.err) } : {}),
          at: typeof line.time === 'number' ? line.time : Date.parse(String(line.time)) || 0,
        });
      }
    }
    return notes;
  }

  /** Log lines of every process, all generations, whose error message matches `pattern`. */
  loggedErrors(pattern: RegExp): number {
    let n = 0;
    for (const { proc } of this.all)
      for (const line of proc.logs()) if (pattern.test(errorMessage(line.err) ?? '')) n++;
    return n;
  }

  /**
   * Last lines of every process that exited on its own (a crash is worth reading): with a code
   * other than 0, or by a signal the run does not send (SIGABRT from a failed assertion in native
   * code, SIGSEGV; SIGKILL and SIGTERM are the run's own).
   */
  crashes(): string[] {
    return this.all
      .filter(({ proc }) => {
        const { exitCode, signalCode } = proc.child;
        if (typeof exitCode === 'number') return exitCode !== 0;
        return signalCode !== null && signalCode !== 'SIGKILL' && signalCode !== 'SIGTERM';
      })
      .map(
        ({ proc, name }) =>
          `${name} (pid ${proc.child.pid}) exited ${proc.child.exitCode ?? proc.child.signalCode}:\n${proc.lines.slice(-12).join('\n')}`,
      );
  }

  async stopAll(): Promise<void> {
    for (const { proc } of this.all) {
      proc.signal('SIGCONT');
      proc.signal('SIGKILL');
    }
    await Promise.all(this.all.map(({ proc }) => proc.exited));
  }
}

function errorMessage(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string'
    ? (err as { message: string }).message.slice(0, 200)
    : undefined;
}
