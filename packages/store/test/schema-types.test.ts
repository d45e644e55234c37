import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../src/db.ts';
import { NULLABLE_COLUMNS, SCHEMA_COLUMNS } from '../src/schema-columns.ts';

// STYLE.md rule 3: the database types the code uses (src/database.ts, mirrored at runtime by
// src/schema-columns.ts) are checked against the migrated schema.
let testDb: TestDatabase;
let db: Db;

interface LiveColumn {
  table_name: string;
  column_name: string;
  is_nullable: 'YES' | 'NO';
}

let live: Map<string, LiveColumn[]>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.pool);
  // Parent tables only: hash partitions (tasks_p0 …) repeat their parent's columns, and the
  // migrator's ledger is not part of the application schema.
  const { rows } = await sql<LiveColumn>`
    SELECT c.table_name, c.column_name, c.is_nullable
    FROM information_schema.columns c
    JOIN pg_class r ON r.relname = c.table_name
    JOIN pg_namespace n ON n.oid = r.relnamespace AND n.nspname = c.table_schema
    WHERE c.table_schema = 'public'
      AND r.relkind IN ('r', 'p')
      AND NOT r.relispartition
      AND c.table_name <> 'schema_migrations'
    ORDER BY c.table_name, c.ordinal_position`.execute(db);
  live = new Map();
  for (const row of rows) live.set(row.table_name, [...(live.get(row.table_name) ?? []), row]);
});
afterAll(async () => {
  await testDb.drop();
});

const tables = Object.keys(SCHEMA_COLUMNS) as (keyof typeof SCHEMA_COLUMNS)[];

describe('src/database.ts matches the migrated schema', () => {
  it('declares exactly the live tables', () => {
    expect([...tables].sort()).toEqual([...live.keys()].sort());
  });

  it.each(tables)('%s: declares exactly the live columns', (table) => {
    const columns = (live.get(table) ?? []).map((c) => c.column_name);
    expect([...SCHEMA_COLUMNS[table]].sort()).toEqual(columns.sort());
  });

  it.each(tables)('%s: nullable exactly where the live column is', (table) => {
    const nullable = (live.get(table) ?? []).filter((c) => c.is_nullable === 'YES').map((c) => c.column_name);
    expect([...NULLABLE_COLUMNS[table]].sort()).toEqual(nullable.sort());
  });
});
