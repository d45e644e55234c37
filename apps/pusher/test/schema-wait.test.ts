import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createQueueKeys } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
import { waitFor } from '@switchyard/testing';
import { createPusher, type Pusher } from '../src/create-pusher.ts';
import {
  appendEvents,
  createTask,
  deliveriesOf,
  newTenant,
  TEST_SETTINGS,
  usePusherSuite,
} from './pusher-fixtures.ts';

// A new pusher of a rolling upgrade may start before the migrations Job has run: it must not
// claim with new statements on the old tables. It waits until the schema is current; a stop
// meanwhile still works.
const suite = usePusherSuite();

/** Takes the newest migration out of the ledger: the schema of the release before. */
async function rollBackLedger(pool: pg.Pool): Promise<() => Promise<void>> {
  const { rows } = await pool.query<{ version: number; name: string; checksum: string }>(
    'DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations) RETURNING version, name, checksum',
  );
  const row = rows[0]!;
  return async () => {
    await pool.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
      row.version,
      row.name,
      row.checksum,
    ]);
  };
}

/** The test database's pool, counting the schema checks made through it. */
function countingSchemaChecks(pool: pg.Pool): { pool: pg.Pool; checks: () => number } {
  let checks = 0;
  const counted = new Proxy(pool, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (prop === 'query')
        return (...args: Parameters<pg.Pool['query']>) => {
          if (String(args[0]).includes('schema_migrations')) checks += 1;
          return (target.query as (...a: unknown[]) => unknown).apply(target, args);
        };
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { pool: counted, checks: () => checks };
}

function pusherOn(pool: pg.Pool): Pusher {
  return createPusher({
    pool,
    subscriber: suite.scope.redis.connect(),
    keys: createQueueKeys(suite.scope.redis.prefix),
    secrets: suite.env.secrets,
    log: silentLogger(),
    settings: { workerId: `pusher-${randomUUID().slice(0, 8)}`, ...TEST_SETTINGS, schemaPollMs: 50 },
  });
}

describe('a pusher started before the migrations ran', () => {
  it('claims nothing until the schema is current, alive but unready meanwhile, then delivers', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    await appendEvents(suite.env, tenantId, task, 1);
    const restore = await rollBackLedger(suite.env.testDb.pool);
    const { pool, checks } = countingSchemaChecks(suite.env.testDb.pool);
    const pusher = pusherOn(pool);
    try {
      const started = pusher.start();
      await waitFor(() => checks() >= 5, { what: 'five schema checks' });

      expect(pusher.state).toBe('starting');
      expect(pusher.health()).toBe(true);
      expect(await pusher.ready()).toMatchObject({ migrations: false, running: false });
      expect(suite.receiver.requests).toEqual([]);
      const pending = await deliveriesOf(suite.env, tenantId, task.taskId);
      expect(pending.length).toBeGreaterThan(0);
      expect(pending.every((d) => d.status === 'pending' && d.attempts === 0)).toBe(true);

      await restore();
      await started;
      expect(pusher.state).toBe('running');
      await waitFor(
        async () =>
          (await deliveriesOf(suite.env, tenantId, task.taskId)).every((d) => d.status === 'delivered'),
        { what: 'the delivery once the schema is current' },
      );
    } finally {
      await pusher.stop();
    }
  });

  it('stops while it waits, and its start() resolves', async () => {
    const restore = await rollBackLedger(suite.env.testDb.pool);
    const pusher = pusherOn(suite.env.testDb.pool);
    try {
      const started = pusher.start();
      expect(pusher.state).toBe('starting');
      await pusher.stop();
      await started;
      expect(pusher.state).toBe('stopped');
    } finally {
      await restore();
    }
  });
});
