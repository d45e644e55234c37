import net from 'node:net';

/** Where the tests' Postgres and Redis are. */
export interface TestServices {
  databaseUrl: string;
  redisUrl: string;
  /** Stops containers started for this run (a no-op for external services). */
  stop(): Promise<void>;
}

const LOCAL_PG = 'postgres://postgres@127.0.0.1:5432/postgres';
const LOCAL_REDIS = 'redis://127.0.0.1:6379';

function reachable(url: string, defaultPort: number): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname || '127.0.0.1', port: Number(u.port || defaultPort) });
    socket.setTimeout(1500);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * DATABASE_URL / REDIS_URL when given, else the local defaults, else containers through
 * testcontainers where a Docker engine runs; otherwise a clear error naming what is missing.
 */
export async function resolveTestServices(env: NodeJS.ProcessEnv = process.env): Promise<TestServices> {
  const stops: Array<() => Promise<unknown>> = [];
  let databaseUrl = env.DATABASE_URL;
  let redisUrl = env.REDIS_URL;
  if (!databaseUrl && (await reachable(LOCAL_PG, 5432))) databaseUrl = LOCAL_PG;
  if (!redisUrl && (await reachable(LOCAL_REDIS, 6379))) redisUrl = LOCAL_REDIS;
  if (!databaseUrl) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql').catch(noDocker('Postgres'));
    const pg = await new PostgreSqlContainer('postgres:16-alpine').start().catch(noDocker('Postgres'));
    databaseUrl = pg.getConnectionUri();
    stops.push(() => pg.stop());
  }
  if (!redisUrl) {
    const { RedisContainer } = await import('@testcontainers/redis').catch(noDocker('Redis'));
    const redis = await new RedisContainer('redis:7-alpine').start().catch(noDocker('Redis'));
    redisUrl = redis.getConnectionUrl();
    stops.push(() => redis.stop());
  }
  return {
    databaseUrl,
    redisUrl,
    stop: async () => {
      await Promise.all(stops.map((s) => s()));
    },
  };
}

function noDocker(what: string) {
  return (cause: unknown): never => {
    throw new Error(
      `${what} is not reachable: set ${what === 'Redis' ? 'REDIS_URL' : 'DATABASE_URL'}, run ${what} on its default ` +
        `local port, or run a Docker engine so testcontainers can start one`,
      { cause },
    );
  };
}
