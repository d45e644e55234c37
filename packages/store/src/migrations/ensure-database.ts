import pg from 'pg';

/** SQLSTATE invalid_catalog_name: the database named in the connection does not exist. */
const DATABASE_MISSING = '3D000';
/** SQLSTATE duplicate_database. */
const DATABASE_EXISTS = '42P04';
/** The database every Postgres server has, from which another one can be created. */
const MAINTENANCE_DATABASE = 'postgres';

/**
 * Creates the database named in `url` when it does not exist. Lets `script/bootstrap` work on a
 * fresh server. It connects to that database first and goes to the server's `postgres` database
 * only when Postgres says it is missing: a managed Postgres role may have no CONNECT on
 * `postgres`, and PgBouncer serves only the databases it is configured with, so a migration of an
 * existing database must never need it.
 */
export async function ensureDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  const target = new pg.Client({ connectionString: url });
  try {
    await target.connect();
  } catch (err) {
    if (sqlState(err) !== DATABASE_MISSING) throw err;
    await createDatabase(maintenanceUrl(url), name);
    return;
  }
  await target.end();
}

async function createDatabase(maintenance: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: maintenance });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`).catch((err: unknown) => {
      // Another process created it since our connection was refused: that is success.
      if (sqlState(err) !== DATABASE_EXISTS) throw err;
    });
  } finally {
    await client.end();
  }
}

function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  return name;
}

function maintenanceUrl(url: string): string {
  const maintenance = new URL(url);
  maintenance.pathname = `/${MAINTENANCE_DATABASE}`;
  return maintenance.toString();
}

function sqlState(err: unknown): string | undefined {
  return (err as { code?: string } | null)?.code;
}
