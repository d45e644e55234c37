import { createDb, createSecretBox, PostgresAdminStore } from '@switchyard/store';
import pg from 'pg';
import type { CheckInput, CheckResult, Fault, SendRecord, StreamSession } from './check-types.ts';
import { check } from './checker.ts';
import { collectStore, pendingWork } from './collect.ts';
import { createCountingAgent } from './counting-agent.ts';
import { CREATE_EXECUTIONS_TABLE } from './executions.ts';
import { injectFaults } from './faults.ts';
import { Fleet, STATEMENT_TIMEOUT_MS } from './fleet.ts';
import { sleep } from './free-port.ts';
import { COUNTING_EXECUTOR } from './plan.ts';
import { findPgBin, startPrivatePostgres } from './private-postgres.ts';
import { hasRedisServer, startPrivateRedis } from './private-redis.ts';
import { sharedPostgres, sharedRedis } from './shared-services.ts';
import { startPushReceiver } from './push-receiver.ts';
import { createRng } from './rng.ts';
import { runWorkload } from './workload.ts';

export interface ChaosOptions {
  durationMs: number;
  seed: number;
  clients?: number;
  workers?: number;
  gateways?: number;
  log?: (line: string) => void;
}

export interface ChaosReport extends CheckResult {
  seed: number;
  /** Which Postgres and Redis the faults hit. */
  services: { postgres: string; redis: string };
  durationMs: number;
  faults: Fault[];
  /** Answered requests by operation and binding. */
  calls: Record<string, number>;
  /** Statements the processes gave up on (PG_STATEMENT_TIMEOUT_MS), counted in their logs. */
  statementTimeouts: number;
  /** The checker's input, for a closer look at a violation. */
  input: CheckInput;
}

const TENANT = 'chaos';
const AGENT = 'counter';
const API_KEY = 'sy_chaos_run_key_0123456789abcdef0123';
const SECRET = 'chaos-secret-key-0123456789';

/**
 * One fault-injection run: private Postgres and Redis, real gateway, worker and pusher processes,
 * a mixed workload of retrying clients, faults at random points; then heal, let the work settle,
 * and check what the store, the receiver and the clients recorded.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const rng = createRng(options.seed);
  log(`seed ${options.seed}, ${options.durationMs} ms of workload`);
  // Private servers whenever the binaries are there (a real crash and restart), else proxies
  // (CHAOS_SHARED_SERVICES=1 forces them, to try that mode).
  const shared = process.env.CHAOS_SHARED_SERVICES === '1';
  const postgres = findPgBin() && !shared ? await startPrivatePostgres() : await sharedPostgres();
  const redis = hasRedisServer() && !shared ? await startPrivateRedis() : await sharedRedis();
  log(`postgres: ${postgres.kind}; redis: ${redis.kind}`);
  const receiver = await startPushReceiver(createRng(options.seed + 7));
  const pool = new pg.Pool({ connectionString: postgres.url, max: 4 });
  // Postgres restarts kill its connections, idle or checked out; that is the point, not a crash.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  let torn: Promise<void> | undefined;
  const tearDown = () =>
    (torn ??= (async () => {
      running.delete(tearDown);
      await fleet.stopAll();
      await receiver.close();
      await pool.end().catch(() => undefined);
      await redis.stop();
      await postgres.stop();
    })());
  const fleet = new Fleet({
    DATABASE_URL: postgres.url,
    REDIS_URL: redis.url,
    SWITCHYARD_REDIS_PREFIX: redis.prefix,
    SWITCHYARD_SECRET_KEY: SECRET,
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    PG_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    PG_CONNECT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
  });
  running.add(tearDown);
  try {
    await setUpTenant(pool);
    for (let i = 1; i <= (options.gateways ?? 2); i++) await fleet.add('gateway', `gateway-${i}`);
    for (let i = 1; i <= (options.workers ?? 3); i++) await fleet.add('worker', `worker-${i}`);
    await fleet.add('pusher', 'pusher-1');
    await fleet.allReady();
    log('platform up: ' + fleet.members.map((m) => `${m.name}(pid ${m.proc?.child.pid})`).join(' '));

    const sends: SendRecord[] = [];
    const streams: StreamSession[] = [];
    const faults: Fault[] = [];
    const calls: Record<string, number> = {};
    const until = Date.now() + options.durationMs;
    const endpoints = fleet.byRole('gateway').map((g) => {
      const base = `http://127.0.0.1:${g.port}/agents/${TENANT}/${AGENT}`;
      return { rpcUrl: `${base}/rpc`, restUrl: `${base}/rest`, apiKey: API_KEY };
    });
    const workload = runWorkload(
      { endpoints, requestBudgetMs: 60_000, sends, streams, webhookUrl: receiver.url, calls },
      { clients: options.clients ?? 6, seed: options.seed, stop: () => Date.now() >= until },
    );
    await injectFaults({ fleet, redis, postgres, pool, rng, log }, until, faults);
    await fleet.heal();
    log('faults over; waiting for the clients');
    await workload;
    log(`clients done (${sends.length} sends); waiting for the work to settle`);
    await settle(pool);
    const input: CheckInput = {
      sends,
      streams,
      pushes: receiver.received,
      faults,
      workerNotes: fleet.workerNotes(),
      crashes: fleet.crashes(),
      ...(await collectStore(pool, TENANT)),
    };
    const result = check(input);
    return {
      ...result,
      seed: options.seed,
      services: { postgres: postgres.kind, redis: redis.kind },
      durationMs: options.durationMs,
      faults,
      calls,
      // The client's timeout (a server that does not answer), and Postgres's own cancel (57014).
      statementTimeouts: fleet.loggedErrors(
        /did not answer within|canceling statement due to statement timeout/,
      ),
      input,
    };
  } finally {
    await tearDown();
  }
}

/** Teardowns of runs in progress, so an interrupted command leaves no server behind. */
const running = new Set<() => Promise<void>>();

/** Stops every run in progress (processes, servers, temp dirs): for SIGINT/SIGTERM. */
export async function abortRuns(): Promise<void> {
  await Promise.all([...running].map((tearDown) => tearDown()));
}

async function setUpTenant(pool: pg.Pool): Promise<void> {
  await pool.query(CREATE_EXECUTIONS_TABLE);
  const admin = new PostgresAdminStore({ db: createDb(pool), secrets: createSecretBox(SECRET) });
  await admin.ensureTenant({ id: TENANT, name: 'Chaos' });
  const agent = createCountingAgent({ record: async () => undefined, pid: 0, workerId: '' });
  await admin.upsertAgent({
    tenantId: TENANT,
    id: AGENT,
    card: agent.card as unknown as Record<string, unknown>,
    executor: COUNTING_EXECUTOR,
    settings: {},
  });
  await admin.createApiKey({ tenantId: TENANT, principal: 'chaos-client', role: 'user', plaintext: API_KEY });
}

/** Waits (bounded) until no task is runnable and no push is pending; the checker reports what is left. */
async function settle(pool: pg.Pool): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const left = await pendingWork(pool, TENANT).catch(() => null);
    if (left && left.live === 0 && left.pushes === 0) return;
    await sleep(250);
  }
}
