import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * Named (server-side prepared) statements for the statements a process runs again and again.
 *
 * Every query kysely sends is parameterized text. Sent unnamed, Postgres parses, analyzes and
 * plans it on every execution; for the hot path's CTE statements over the partitioned task table
 * that planning costs more CPU than running them (about 0.5 ms each, measured with EXPLAIN). A
 * named statement is parsed once per connection. Its connection also plans it once: left to
 * itself, Postgres compares the generic plan's estimated cost with custom plans', and for the
 * partitioned tables the generic one (all partitions, pruned at run time) always looks dearer, so
 * it would plan every execution anyway. Our statements are keyed lookups whose best plan does not
 * depend on the values, so the pool's sessions start with `plan_cache_mode = force_generic_plan`
 * (GENERIC_PLAN_OPTIONS). The setting reaches unnamed statements too: they are planned on every
 * execution, but generically, without their values. A statement whose best index depends on its
 * values (ListTasks: whose list it is) sets `plan_cache_mode` back for its own transaction.
 *
 * Which texts are named is bounded, because each one costs memory in every backend that runs it:
 * a text is named from its second use, and at most `limit` distinct texts per process are ever
 * named; the rest (one-off admin and console queries, IN lists of unusual lengths) stay unnamed.
 */
export interface PreparedStatementPolicy {
  /** The statement name for this text, or undefined to send it unnamed. */
  nameFor(text: string): string | undefined;
  /** Stops naming a text (its cached plan no longer fits the schema). */
  forget(text: string): void;
}

/** The session setting for the pool's connections (the startup packet's `options`). */
export const GENERIC_PLAN_OPTIONS = '-c plan_cache_mode=force_generic_plan';

/** Texts counted before any is named; past it, new texts are just sent unnamed. */
const MAX_TRACKED_TEXTS = 2000;

export function preparedStatementPolicy(limit: number): PreparedStatementPolicy {
  const uses = new Map<string, number>();
  const names = new Map<string, string>();
  const refused = new Set<string>();
  return {
    nameFor(text) {
      const named = names.get(text);
      if (named !== undefined || limit <= 0 || refused.has(text)) return named;
      const count = (uses.get(text) ?? 0) + 1;
      if (count < 2 || names.size >= limit) {
        if (uses.size < MAX_TRACKED_TEXTS || uses.has(text)) uses.set(text, count);
        return undefined;
      }
      uses.delete(text);
      const name = `sy_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      names.set(text, name);
      return name;
    },
    forget(text) {
      names.delete(text);
      refused.add(text);
    },
  };
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Makes a pool's clients send the policy's named statements. kysely calls
 * `client.query(text, values)`; that call becomes `client.query({ name, text, values })`, and pg
 * skips the Parse for a name the connection has already prepared. Anything else passes through.
 */
export function usePreparedStatements(pool: pg.Pool, policy: PreparedStatementPolicy): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as QueryFn;
    (client as unknown as { query: QueryFn }).query = (
      config: unknown,
      values?: unknown,
      ...rest: unknown[]
    ) => {
      if (typeof config !== 'string' || !Array.isArray(values) || rest.length > 0) {
        return query(config, values, ...rest);
      }
      const name = policy.nameFor(config);
      if (name === undefined) return query(config, values);
      const result = query({ name, text: config, values }) as Promise<unknown>;
      return result.catch((err: unknown) => {
        // A column added or dropped under a cached plan: this connection's plan is stale for
        // good, so the text goes back to unnamed; the caller sees this one error.
        if (isStalePlan(err)) policy.forget(config);
        throw err;
      });
    };
  });
}

function isStalePlan(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return e?.code === '0A000' && /cached plan must not change result type/.test(e.message ?? '');
}
