import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { runMigrations } from '@switchyard/store';
import { freePort, sleep } from './free-port.ts';

const run = promisify(execFile);

/**
 * A Postgres cluster of the run's own (initdb in a temp dir, on a free port), migrated with the
 * store's migrator, so the suite can restart it with `-m immediate` (a crash) without touching
 * the shared server. fsync is off: an immediate stop loses no committed WAL (it is in the OS
 * cache), and the run is much faster on a small machine.
 */
export interface PrivatePostgres {
  url: string;
  /** What this Postgres is, for the report. */
  kind: string;
  /** Immediate (crash) stop, `downMs` without a server, then start again. */
  restart(downMs: number): Promise<void>;
  /**
   * The server stops answering for `ms` without closing anything (SIGSTOP of every process of the
   * cluster: a hung server, or a network that drops packets), then carries on where it was.
   */
  freeze(ms: number): Promise<void>;
  stop(): Promise<void>;
}

export function findPgBin(): string | null {
  const candidates = [process.env.CHAOS_PG_BIN ?? ''];
  if (existsSync('/usr/lib/postgresql')) {
    for (const v of readdirSync('/usr/lib/postgresql').sort().reverse())
      candidates.push(`/usr/lib/postgresql/${v}/bin`);
  }
  candidates.push('/usr/local/bin', '/usr/bin');
  return (
    candidates.find(
      (dir) => dir && existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl')),
    ) ?? null
  );
}

/** initdb refuses to run as root: then the cluster belongs to the `postgres` user. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = findPgBin();
  if (!bin) throw new Error('no initdb/pg_ctl found (set CHAOS_PG_BIN to the Postgres bin directory)');
  const user = runAs();
  const dir = await mkdtemp(path.join(tmpdir(), 'chaos-pg-'));
  if (user) await chown(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const port = await freePort();
  const opts = { ...(user ?? {}), cwd: dir, env: { ...process.env, LC_ALL: 'C' } };
  await run(
    path.join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '-N'],
    opts,
  );
  const serverOptions = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
  ].join(' ');
  const pgCtl = (...args: string[]) => run(path.join(bin, 'pg_ctl'), ['-D', data, ...args], opts);
  const start = () =>
    pgCtl('start', '-w', '-t', '60', '-l', path.join(dir, 'server.log'), '-o', serverOptions);
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await runMigrations(client);
  } finally {
    await client.end();
  }
  return {
    url,
    kind: `a cluster of its own on port ${port} (${bin})`,
    async restart(downMs) {
      await pgCtl('stop', '-m', 'immediate', '-w');
      await sleep(downMs);
      await start();
    },
    async freeze(ms) {
      // The postmaster first, so it forks no new backend, then every child it has.
      const postmaster = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const children = execFileSync('pgrep', ['-P', String(postmaster)])
        .toString()
        .split('\n')
        .filter(Boolean)
        .map(Number);
      const all = [postmaster, ...children];
      for (const pid of all) process.kill(pid, 'SIGSTOP');
      try {
        await sleep(ms);
      } finally {
        for (const pid of all.reverse()) process.kill(pid, 'SIGCONT');
      }
    },
    async stop() {
      await pgCtl('stop', '-m', 'immediate', '-w').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
