import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * The line that marks a migration as an online index build: its one statement, a plain
 * `CREATE [UNIQUE] INDEX name ON table …`, is built without blocking the table's writers.
 */
export const ONLINE_INDEX_DIRECTIVE = '-- switchyard:online-index';

/** An online index build, as its migration file states it. */
export interface OnlineIndex {
  unique: boolean;
  name: string;
  table: string;
  /** Everything after the table: `[USING method] (columns) [INCLUDE (…)] [WHERE …]`. */
  definition: string;
}

const IDENTIFIER = '[a-z_][a-z0-9_]*';
const CREATE_INDEX = new RegExp(
  `^CREATE\\s+(UNIQUE\\s+)?INDEX\\s+(${IDENTIFIER})\\s+ON\\s+(${IDENTIFIER})\\s+([^;]+?)\\s*;?\\s*$`,
  'i',
);

/** Postgres's identifier limit, in bytes (NAMEDATALEN - 1); every name here is ASCII. */
const MAX_IDENTIFIER = 63;

/**
 * The index an online migration builds, or undefined for an ordinary migration. A marked file
 * whose statement is not one plain CREATE INDEX is refused when the migrations are read, before
 * anything is applied: `CONCURRENTLY`, `IF NOT EXISTS` and `ON ONLY` are the runner's to add.
 */
export function parseOnlineIndex(name: string, sql: string): OnlineIndex | undefined {
  const lines = sql.split('\n');
  if (!lines.some((line) => line.trim() === ONLINE_INDEX_DIRECTIVE)) return undefined;
  const statement = lines
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n')
    .trim();
  const match = CREATE_INDEX.exec(statement);
  const definition = match?.[4];
  if (!match || !definition || /\b(CONCURRENTLY|IF\s+NOT\s+EXISTS|ONLY)\b/i.test(statement))
    throw new Error(
      `migration ${name} is marked ${ONLINE_INDEX_DIRECTIVE} but is not one statement of the form CREATE [UNIQUE] INDEX <name> ON <table> <definition>`,
    );
  return { unique: Boolean(match[1]), name: match[2]!.toLowerCase(), table: match[3]!.toLowerCase(), definition };
}

/** How the runner takes a short lock: in a transaction of its own, its wait bounded and retried. */
export type ShortLockStep = (sql: string) => Promise<void>;

/**
 * Builds `index` without holding off the table's writers. A plain CREATE INDEX holds a SHARE lock
 * on every partition for the whole build, during which no task can be written. Here each leaf
 * partition gets its index by CREATE INDEX CONCURRENTLY (a lock writers do not wait for), and a
 * partitioned table gets an index of its own `ON ONLY` itself, to which its partitions' indexes
 * are then attached: Postgres marks it valid once every partition has one. Those two steps lock
 * the table only for a moment (`shortStep`, whose waits are bounded and retried).
 *
 * Resumable: a build cut off (a crash, a cancel, a deadlock) leaves an invalid index behind,
 * which the next try drops and builds again; a valid one is kept and an attached one left.
 * The session must not be in a transaction (CONCURRENTLY refuses to run in one).
 */
export async function buildOnlineIndex(
  client: pg.ClientBase,
  index: OnlineIndex,
  shortStep: ShortLockStep,
): Promise<void> {
  await buildOn(client, index.table, index.name, index, shortStep);
  // Recorded as applied only once Postgres holds it valid: an index that is not would be used by
  // no query, and the ledger row would hide that for good.
  if ((await indexOn(client, index.name, index.table)) !== true)
    throw new Error(`index ${index.name} on ${index.table} is not valid after its build`);
}

async function buildOn(
  client: pg.ClientBase,
  relation: string,
  indexName: string,
  index: OnlineIndex,
  shortStep: ShortLockStep,
): Promise<void> {
  const create = `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX`;
  const valid = await indexOn(client, indexName, relation);
  if (!(await isPartitioned(client, relation))) {
    if (valid === true) return;
    if (valid === false) await client.query(`DROP INDEX CONCURRENTLY ${quote(indexName)}`);
    // Its lock (SHARE UPDATE EXCLUSIVE) conflicts with no writer, so waiting for it holds up
    // nobody: no lock_timeout. It does wait for every transaction older than it, by design.
    await client.query('SET lock_timeout = 0');
    await client.query(`${create} CONCURRENTLY ${quote(indexName)} ON ${quote(relation)} ${index.definition}`);
    return;
  }
  if (valid === undefined)
    await shortStep(`${create} IF NOT EXISTS ${quote(indexName)} ON ONLY ${quote(relation)} ${index.definition}`);
  for (const partition of await partitionsOf(client, relation)) {
    // A partition created or attached since the step above got a copy of the index from
    // Postgres, under a name of Postgres's choosing: that one is this partition's.
    const attached = await attachedIndexOn(client, indexName, partition);
    const partitionIndex = attached ?? partitionIndexName(indexName, partition);
    await buildOn(client, partition, partitionIndex, index, shortStep);
    if (attached === undefined)
      await shortStep(`ALTER INDEX ${quote(indexName)} ATTACH PARTITION ${quote(partitionIndex)}`);
  }
}

/**
 * A partition's index: `<partition>_<index>`, as Postgres names the indexes it makes for a new
 * partition; cut and suffixed with a digest when that is longer than an identifier may be, so
 * that the same partition always gets the same name (a resumed build must find it again).
 */
export function partitionIndexName(indexName: string, partition: string): string {
  const name = `${partition}_${indexName}`;
  if (name.length <= MAX_IDENTIFIER) return name;
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_IDENTIFIER - digest.length - 1)}_${digest}`;
}

async function isPartitioned(client: pg.ClientBase, relation: string): Promise<boolean> {
  const { rows } = await client.query<{ relkind: string }>(
    'SELECT relkind FROM pg_class WHERE oid = to_regclass($1)',
    [quote(relation)],
  );
  if (!rows[0]) throw new Error(`table ${relation} does not exist`);
  return rows[0].relkind === 'p';
}

/** The table's direct partitions, in name order (a resumed build goes the same way). */
async function partitionsOf(client: pg.ClientBase, relation: string): Promise<string[]> {
  const { rows } = await client.query<{ relname: string }>(
    `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = to_regclass($1) ORDER BY c.relname`,
    [quote(relation)],
  );
  return rows.map((r) => r.relname);
}

/**
 * True for a valid index of that name on `relation`, false for one a cut-off build left invalid,
 * undefined for none. An index of that name on another table is refused: taking it for this
 * build's own would skip the build and record it applied.
 */
async function indexOn(client: pg.ClientBase, indexName: string, relation: string): Promise<boolean | undefined> {
  const { rows } = await client.query<{ valid: boolean; ours: boolean; table: string }>(
    `SELECT indisvalid AS valid, indrelid = to_regclass($2) AS ours, indrelid::regclass::text AS table
       FROM pg_index WHERE indexrelid = to_regclass($1)`,
    [quote(indexName), quote(relation)],
  );
  const found = rows[0];
  if (found && !found.ours)
    throw new Error(`an index named ${indexName} already exists on ${found.table}, not on ${relation}`);
  return found?.valid;
}

/** The index on `partition` attached to the parent index `parentIndex`, if any. */
async function attachedIndexOn(
  client: pg.ClientBase,
  parentIndex: string,
  partition: string,
): Promise<string | undefined> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i
       JOIN pg_index x ON x.indexrelid = i.inhrelid
       JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = to_regclass($1) AND x.indrelid = to_regclass($2)`,
    [quote(parentIndex), quote(partition)],
  );
  return rows[0]?.name;
}

/** Names here match IDENTIFIER or come from pg_class, so quoting is all they need. */
function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
