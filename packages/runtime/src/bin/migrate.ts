// The migrate command: creates the database if needed and applies pending migrations. It is run as
// `node packages/store/src/bin/migrate.ts` (script/bootstrap, `pnpm migrate`, the image, compose's
// `migrate` service, the Kubernetes Job), which hands over to this file.
import pg from 'pg';
import { ensureDatabase, runMigrations } from '@switchyard/store';
import { loadConfigOrExit } from '../config-exit.ts';
import { commonEnvSchema, parseEnv } from '../env-config.ts';

// Validated as every process validates it, so a bad DATABASE_URL is named (its password not
// shown) instead of surfacing as `TypeError: Invalid URL` from inside pg. Only DATABASE_URL is
// passed: the command uses no secret, so placeholders still in the others must not stop it.
const { DATABASE_URL } = loadConfigOrExit('migrate', () =>
  parseEnv(commonEnvSchema.pick({ DATABASE_URL: true }), { DATABASE_URL: process.env['DATABASE_URL'] }),
);
await ensureDatabase(DATABASE_URL);
const client = new pg.Client({ connectionString: DATABASE_URL });
await client.connect();
try {
  const { applied, current } = await runMigrations(client);
  console.log(
    applied.length ? `applied ${applied.join(', ')}; schema at ${current}` : `schema current at ${current}`,
  );
} finally {
  await client.end();
}
