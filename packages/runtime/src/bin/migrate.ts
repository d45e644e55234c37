// The migrate command: creates the database if needed and applies pending migrations. It is run as
// `node packages/store/src/bin/migrate.ts` (script/bootstrap, `pnpm migrate`, the image, compose's
// `migrate` service, the Kubernetes Job), which hands over to this file.
import pg from 'pg';
import { ensureDatabase, runMigrations } from '@switchyard/store';
import { loadConfigOrExit } from '../config-exit.ts';
import { commonEnvSchema, intVar, msVar, parseEnv } from '../env-config.ts';

const migrateEnvSchema = commonEnvSchema.pick({ DATABASE_URL: true }).extend({
  /** How long a migration's statement waits for a table lock before the try is made again. */
  MIGRATION_LOCK_TIMEOUT_MS: msVar(3000, 1),
  /** Tries of one migration that waited too long for a lock, before the command fails. */
  MIGRATION_LOCK_ATTEMPTS: intVar(20, 1, 10_000),
});

// Validated as every process validates it, so a bad DATABASE_URL is named (its password not
// shown) instead of surfacing as `TypeError: Invalid URL` from inside pg. Only the command's own
// settings are passed: it uses no secret, so placeholders still in the others must not stop it.
const config = loadConfigOrExit('migrate', () =>
  parseEnv(migrateEnvSchema, {
    DATABASE_URL: process.env['DATABASE_URL'],
    MIGRATION_LOCK_TIMEOUT_MS: process.env['MIGRATION_LOCK_TIMEOUT_MS'],
    MIGRATION_LOCK_ATTEMPTS: process.env['MIGRATION_LOCK_ATTEMPTS'],
  }),
);
const { DATABASE_URL } = config;
await ensureDatabase(DATABASE_URL);
const client = new pg.Client({ connectionString: DATABASE_URL });
// A connection lost between queries (Postgres restarted during a retry's pause) is reported by the
// next query, which fails the command naming the migration; unheard, the event would crash it first.
client.on('error', (err) => console.error(`migrate: connection to Postgres lost: ${err.message}`));
await client.connect();
// The platform's processes run under statement and idle-in-transaction timeouts, which a
// deployment behind PgBouncer sets on the role: a migration (an online index build waits for
// every older transaction by design) must not be cut off by them.
await client.query('SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0');
try {
  const { applied, current } = await runMigrations(client, undefined, {
    lockTimeoutMs: config.MIGRATION_LOCK_TIMEOUT_MS,
    attempts: config.MIGRATION_LOCK_ATTEMPTS,
    onLockWait: (migration, attempt) =>
      console.error(
        `migration ${migration}: a lock it needs stayed taken for ${config.MIGRATION_LOCK_TIMEOUT_MS} ms, or it was a deadlock's victim (try ${attempt} of ${config.MIGRATION_LOCK_ATTEMPTS}); rolled back, trying again in 1 s (pg_blocking_pids names the blocker)`,
      ),
  });
  console.log(
    applied.length ? `applied ${applied.join(', ')}; schema at ${current}` : `schema current at ${current}`,
  );
} finally {
  await client.end();
}
