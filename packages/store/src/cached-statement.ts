import { isDeepStrictEqual } from 'node:util';
import { CompiledQuery, type Compilable } from 'kysely';
import type { Db } from './db.ts';

/**
 * Puts one of the statement's values into the query: `p((input) => input.taskId)`. It reads the
 * value from the input of the call being run, never from the one the query was built for.
 */
export type ValueOf<I> = <T>(read: (input: I) => T) => T;

export interface StatementDefinition<I, R> {
  /** Names the statement in errors. */
  name: string;
  /**
   * Everything about the input that changes the SQL text (optional parts, list lengths, which
   * columns are set), as a short key. Two inputs with the same key must build the same text.
   */
  shape(input: I): string;
  /** Builds the query: structure from `input`, every value through `p`. */
  build(db: Db, input: I, p: ValueOf<I>): Compilable<R>;
  /** Compare every call with a direct build; default: SWITCHYARD_VERIFY_STATEMENTS is '1'. */
  verify?: boolean;
}

export interface CachedStatement<I, R> {
  /** Runs the statement for `input` and returns its rows. */
  rows(db: Db, input: I): Promise<R[]>;
}

/** Marks where a value goes while the text is built once for its shape. */
class Slot<I> {
  readonly read: (input: I) => unknown;
  constructor(read: (input: I) => unknown) {
    this.read = read;
  }
}

interface Compiled<I> {
  sql: string;
  /** Per parameter: its reader, or the constant the builder put there. */
  values: Array<(input: I) => unknown>;
}

/**
 * A hot statement compiled by kysely once per shape rather than on every call.
 *
 * Building and compiling the task statements' CTE trees with kysely was a sixth of the worker's
 * CPU and a ninth of the gateway's per task in the bench's profiles: new frozen nodes, a visitor
 * pass and identifier quoting, every time, for a text that only depends on which optional parts
 * the statement has. So the first call of each shape builds the query with a slot in place of
 * every value and keeps the compiled text and each parameter's reader; later calls only read
 * their values and run the text (still a named prepared statement, prepared-statements.ts).
 *
 * A shape key that misses a difference, or a value read from the wrong input, would run the wrong
 * statement. With SWITCHYARD_VERIFY_STATEMENTS=1 (the test suite sets it) every call also builds
 * and compiles the query directly and throws if text or values differ.
 */
export function cachedStatement<I, R>(definition: StatementDefinition<I, R>): CachedStatement<I, R> {
  const byShape = new Map<string, Compiled<I>>();
  const verify = definition.verify ?? process.env.SWITCHYARD_VERIFY_STATEMENTS === '1';
  const compile = (db: Db, input: I, shape: string): Compiled<I> => {
    const slot: ValueOf<I> = (read) => new Slot(read) as never;
    const query = definition.build(db, input, slot).compile();
    const compiled = {
      sql: query.sql,
      values: query.parameters.map((v) => (v instanceof Slot ? (v.read as (i: I) => unknown) : () => v)),
    };
    byShape.set(shape, compiled);
    return compiled;
  };
  return {
    async rows(db, input) {
      const shape = definition.shape(input);
      const compiled = byShape.get(shape) ?? compile(db, input, shape);
      const parameters = compiled.values.map((read) => read(input));
      if (verify) {
        const direct = definition.build(db, input, (read) => read(input)).compile();
        if (direct.sql !== compiled.sql || !isDeepStrictEqual(direct.parameters, parameters)) {
          throw new Error(
            `cached statement ${definition.name} (shape ${shape}) differs from its direct build:\n` +
              `${compiled.sql}\n${JSON.stringify(parameters)}\nvs\n${direct.sql}\n${JSON.stringify(direct.parameters)}`,
          );
        }
      }
      const result = await db.executeQuery(CompiledQuery.raw(compiled.sql, parameters));
      return result.rows as R[];
    },
  };
}
