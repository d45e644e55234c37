// Entry point: `node packages/store/src/bin/migrate.ts` creates the database if needed and applies
// pending migrations. Used by script/bootstrap, the compose `migrate` service and the k8s Job.
import pg from 'pg';
import { ensureDatabase } from '../migrations/ensure-database.ts';
import { runMigrations } from '../migrations/run-migrations.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/switchyard';
await ensureDatabase(url);
const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  const { applied, current } = await runMigrations(client);
  console.log(
    applied.length ? `applied ${applied.join(', ')}; schema at ${current}` : `schema current at ${current}`,
  );
} finally {
  await client.end();
}
