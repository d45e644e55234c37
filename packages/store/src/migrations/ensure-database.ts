import pg from 'pg';

/**
 * Creates the database named in `url` when it does not exist (connecting to the server's
 * `postgres` database to do so). Lets `script/bootstrap` work on a fresh server.
 */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`).catch((err: unknown) => {
        // Another process created it between our check and our CREATE: that is success.
        if ((err as { code?: string }).code !== '42P04') throw err;
      });
    }
  } finally {
    await client.end();
  }
}
