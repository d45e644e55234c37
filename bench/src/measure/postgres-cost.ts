import type pg from 'pg';
import type { SubmitResult } from '../load/jobs.ts';
import { API_KEY, TENANT } from '../platform/bench-environment.ts';
import type { PlatformProcess } from '../platform/cluster.ts';
import { runLoad } from '../platform/load-generator.ts';
import type { WireCounts } from '../platform/pg-wire-counter.ts';
import { round } from '../stats.ts';
import { commits } from './postgres-cpu.ts';
import { waitTerminal } from './task-timings.ts';

/** Counters the cost phase reads: the wire counts of each proxied process and the database's commits. */
export interface CostProbe {
  gateway: PlatformProcess;
  wire: Record<'gateway' | 'worker', { counts: WireCounts; reset(): void }>;
  admin: pg.Pool;
  pool: pg.Pool;
  database: string;
}

export interface PostgresCost {
  tasks: number;
  /** Transactions per task counted on the wire (exact for the two proxied processes), reads included. */
  transactionsPerTask: number;
  /** Those that wrote: the figure the "about 3 transactions per task" is about. */
  writeTransactionsPerTask: number;
  /**
   * Cross-check: pg_stat_database.xact_commit delta per task, the idle baseline and the
   * benchmark's own polls removed. Every process on the database counts here, and the baseline is
   * noisy for small batches.
   */
  xactCommitPerTask: number;
  /** Counted on the wire of the gateway and the worker, idle baseline removed. */
  perTask: Record<'gateway' | 'worker' | 'total', WireCounts>;
  /** What the idle platform spends per second anyway (reapers, pollers), already subtracted. */
  idlePerSecond: { transactions: number; statements: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const snapshot = (c: WireCounts): WireCounts => ({ ...c });

/** Postgres work per no-op task: one gateway and one worker behind counting proxies run a batch. */
export async function measurePostgresCost(
  p: CostProbe,
  batchMs: number,
  baselineMs: number,
): Promise<PostgresCost> {
  const roles = ['gateway', 'worker'] as const;
  // Backends report their counters at most once a second, so every read waits for them.
  await sleep(1500);
  const x0 = await commits(p.admin, p.database);
  for (const r of roles) p.wire[r].reset();
  let t0 = performance.now();
  await sleep(baselineMs);
  await sleep(1200);
  const idleSeconds = (performance.now() - t0) / 1000;
  const idleWire = Object.fromEntries(roles.map((r) => [r, snapshot(p.wire[r].counts)])) as Record<
    (typeof roles)[number],
    WireCounts
  >;
  const idleXact = (await commits(p.admin, p.database)) - x0;

  const x1 = await commits(p.admin, p.database);
  for (const r of roles) p.wire[r].reset();
  t0 = performance.now();
  const sub = await runLoad<SubmitResult>({
    kind: 'submit-closed',
    gateways: [p.gateway.url],
    key: API_KEY,
    tenant: TENANT,
    agent: 'echo',
    clients: 4,
    durationMs: batchMs,
  });
  const polls = await waitTerminal(p.pool, sub.ids);
  await sleep(1200);
  const seconds = (performance.now() - t0) / 1000;
  const xact = (await commits(p.admin, p.database)) - x1;
  const tasks = sub.ids.length;
  const scale = seconds / idleSeconds;
  const per = (role: (typeof roles)[number]): WireCounts => {
    const c = p.wire[role].counts;
    const idle = idleWire[role];
    const f = (k: keyof WireCounts) => round((c[k] - idle[k] * scale) / tasks, 2);
    return {
      statements: f('statements'),
      roundTrips: f('roundTrips'),
      transactions: f('transactions'),
      writeTransactions: f('writeTransactions'),
    };
  };
  const gateway = per('gateway');
  const worker = per('worker');
  const sum = (k: keyof WireCounts) => round(gateway[k] + worker[k], 2);
  return {
    tasks,
    transactionsPerTask: sum('transactions'),
    writeTransactionsPerTask: sum('writeTransactions'),
    xactCommitPerTask: round((xact - idleXact * scale - polls) / tasks, 2),
    perTask: {
      gateway,
      worker,
      total: {
        statements: sum('statements'),
        roundTrips: sum('roundTrips'),
        transactions: sum('transactions'),
        writeTransactions: sum('writeTransactions'),
      },
    },
    idlePerSecond: {
      transactions: round(idleXact / idleSeconds, 1),
      statements: round((idleWire.gateway.statements + idleWire.worker.statements) / idleSeconds, 1),
    },
  };
}
