import { bundledAgents } from '@switchyard/agents';
import { createDb, createSecretBox, PostgresAdminStore } from '@switchyard/store';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@switchyard/testing';

export const TENANT = 'bench';
export const SECRET = 'bench-secret-key-0123456789';
export const API_KEY = 'sy_bench_key_0123456789abcdefghijkl';

/** Agent ids the scenarios use, all bundled executors configured for the benchmark. */
const agents = (fanout: FanoutAgent) => ({
  /** The no-op task: one artifact and COMPLETED. */
  echo: { executor: 'echo', settings: {} },
  /** Progress events (artifact chunks) spread over a few seconds, for the SSE fan-out. */
  fanout: { executor: 'slow', settings: { ...fanout, progress: 'artifact' } },
  /** Runs for an hour emitting nothing: streams on it are idle until the task is cancelled. */
  idle: { executor: 'slow', settings: { delayMs: 3_600_000, steps: 0 } },
});

export interface FanoutAgent {
  delayMs: number;
  steps: number;
}

export interface BenchEnvironment {
  db: TestDatabase;
  redis: TestRedis;
  /** The fresh database's name, for pg_stat_database and pg_stat_activity. */
  databaseName: string;
  close(): Promise<void>;
}

/** A fresh migrated database and Redis prefix with one tenant, its API key and the bench agents. */
export async function createBenchEnvironment(fanout: FanoutAgent): Promise<BenchEnvironment> {
  const db = await createTestDatabase();
  const redis = createTestRedis();
  const admin = new PostgresAdminStore({ db: createDb(db.pool), secrets: createSecretBox(SECRET) });
  await admin.ensureTenant({ id: TENANT, name: 'Benchmark' });
  for (const [id, { executor, settings }] of Object.entries(agents(fanout))) {
    const agent = bundledAgents.find((a) => a.executor === executor)!;
    await admin.upsertAgent({
      tenantId: TENANT,
      id,
      card: agent.card as unknown as Record<string, unknown>,
      executor,
      settings,
    });
  }
  await admin.createApiKey({ tenantId: TENANT, principal: 'bench', role: 'user', plaintext: API_KEY });
  return {
    db,
    redis,
    databaseName: new URL(db.url).pathname.slice(1),
    async close() {
      await redis.cleanup();
      await db.drop();
    },
  };
}
