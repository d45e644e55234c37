// Vitest global setup: resolve Postgres and Redis once for the run and build the migrated template.
import { resolveTestServices } from './services.ts';
import { ensureTemplateDatabase } from './test-database.ts';

export default async function setup(): Promise<() => Promise<void>> {
  const services = await resolveTestServices();
  process.env.DATABASE_URL = services.databaseUrl;
  process.env.REDIS_URL = services.redisUrl;
  await ensureTemplateDatabase();
  return () => services.stop();
}
