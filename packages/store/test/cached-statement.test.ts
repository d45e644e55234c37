import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { cachedStatement } from '../src/cached-statement.ts';
import { createDb, type Db } from '../src/index.ts';

let testDb: TestDatabase;
let db: Db;
beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.pool);
});
afterAll(() => testDb.drop());

interface Input {
  name: string;
  n: number;
  extra?: string;
}

describe('cachedStatement', () => {
  it("builds a shape's text once and runs every call with its own values", async () => {
    let builds = 0;
    const statement = cachedStatement({
      name: 'echo',
      shape: (i: Input) => (i.extra === undefined ? 'plain' : 'extra'),
      verify: false,
      build: (d, input, p) => {
        builds++;
        return d.selectNoFrom((eb) => [
          eb.val(p((i) => i.name)).as('name'),
          eb.val(p((i) => String(i.n * 2))).as('twice'),
          eb.lit(7).as('seven'),
          ...(input.extra === undefined ? [] : [eb.val(p((i) => i.extra)).as('extra')]),
        ]);
      },
    });
    expect(await statement.rows(db, { name: 'a', n: 1 })).toEqual([{ name: 'a', twice: '2', seven: 7 }]);
    expect(await statement.rows(db, { name: 'b', n: 5 })).toEqual([{ name: 'b', twice: '10', seven: 7 }]);
    expect(builds).toBe(1);
    expect(await statement.rows(db, { name: 'c', n: 0, extra: 'x' })).toEqual([
      { name: 'c', twice: '0', seven: 7, extra: 'x' },
    ]);
    expect(builds).toBe(2);
  });

  it('in verify mode, refuses a shape key that misses a difference in the text', async () => {
    const statement = cachedStatement({
      name: 'careless-shape',
      shape: () => 'always the same',
      verify: true,
      build: (d, input: Input, p) =>
        d.selectNoFrom((eb) => [
          eb.val(p((i) => i.name)).as('name'),
          ...(input.extra === undefined ? [] : [eb.val(p((i) => i.extra)).as('extra')]),
        ]),
    });
    await statement.rows(db, { name: 'a', n: 1 });
    await expect(statement.rows(db, { name: 'b', n: 1, extra: 'x' })).rejects.toThrow(
      /cached statement careless-shape \(shape always the same\) differs/,
    );
  });

  it('in verify mode, refuses a value read from the input the text was built for', async () => {
    const statement = cachedStatement({
      name: 'captured-value',
      shape: () => 'one',
      verify: true,
      // Wrong on purpose: the reader ignores its argument and returns the first call's name.
      build: (d, input: Input, p) => d.selectNoFrom((eb) => [eb.val(p(() => input.name)).as('name')]),
    });
    expect(await statement.rows(db, { name: 'first', n: 1 })).toEqual([{ name: 'first' }]);
    await expect(statement.rows(db, { name: 'second', n: 1 })).rejects.toThrow(
      /differs from its direct build/,
    );
  });
});
