import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../src/db.ts';
import { runRetention, type RetentionResult } from '../src/retention/index.ts';
import { createSecretBox } from '../src/secret-box.ts';
import { LIVE, seedDeliveries, seedEvents, seedPushConfig, seedTask, TERMINAL } from './outbox-fixtures.ts';

// ARCHITECTURE.md §8 with the defaults: terminal tasks 30 days, events 24 hours (after the task
// ended), idempotency keys 24 hours, delivered pushes 7 days. Every row gets an explicit timestamp
// on either side of its cutoff, then one run must delete exactly the expired ones.
const NOW = new Date('2025-03-01T00:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const T = 'acme';

const secrets = createSecretBox('retention-test-key-000');
let testDb: TestDatabase;
let db: Db;

async function seedHistory(taskId: string, at: Date) {
  await db
    .insertInto('task_messages')
    .values(
      [0, 1].map((position) => ({ tenant_id: T, task_id: taskId, position, message: '{}', created_at: at })),
    )
    .execute();
  await db
    .insertInto('artifact_chunks')
    .values({
      tenant_id: T,
      task_id: taskId,
      seq: 2,
      artifact_id: 'a',
      append: false,
      last_chunk: true,
      parts: '[]',
      created_at: at,
    })
    .execute();
}

/** A task with history, artifact, events 1..3 and a push config with a delivery per event. */
async function seedFullTask(state: string, updatedAt: Date, eventsAt = updatedAt) {
  const taskId = await seedTask(db, { tenantId: T, state, updatedAt });
  await seedHistory(taskId, eventsAt);
  await seedEvents(db, T, taskId, [1, 2, 3], eventsAt);
  const configId = await seedPushConfig(db, secrets, { tenantId: T, taskId });
  await seedDeliveries(db, {
    tenantId: T,
    taskId,
    configId,
    seqs: [1],
    status: 'delivered',
    createdAt: eventsAt,
    deliveredAt: ago(DAY),
  });
  await seedDeliveries(db, { tenantId: T, taskId, configId, seqs: [2], status: 'dead', createdAt: eventsAt });
  await seedDeliveries(db, {
    tenantId: T,
    taskId,
    configId,
    seqs: [3],
    status: 'pending',
    createdAt: eventsAt,
  });
  return taskId;
}

async function rows(table: 'tasks' | 'task_messages' | 'artifact_chunks' | 'push_configs', taskId: string) {
  const column = table === 'tasks' ? 'id' : 'task_id';
  return (await db.selectFrom(table).select('tenant_id').where(column, '=', taskId).execute()).length;
}
async function eventSeqs(taskId: string) {
  return (
    await db.selectFrom('task_events').select('seq').where('task_id', '=', taskId).orderBy('seq').execute()
  ).map((r) => r.seq);
}
async function deliverySeqs(taskId: string) {
  return (
    await db
      .selectFrom('push_deliveries')
      .select('seq')
      .where('task_id', '=', taskId)
      .orderBy('seq')
      .execute()
  ).map((r) => r.seq);
}

const ids: Record<string, string> = {};
let result: RetentionResult;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.pool);

  ids.expiredCompleted = await seedFullTask(TERMINAL, ago(30 * DAY + 1));
  ids.expiredFailed = await seedFullTask('TASK_STATE_FAILED', ago(40 * DAY));
  ids.expiredCanceled = await seedFullTask('TASK_STATE_CANCELED', ago(31 * DAY));
  ids.expiredRejected = await seedFullTask('TASK_STATE_REJECTED', ago(31 * DAY));
  ids.terminalAtCutoff = await seedFullTask(TERMINAL, ago(30 * DAY));
  ids.endedDaysAgo = await seedFullTask(TERMINAL, ago(2 * DAY));
  ids.endedJustNow = await seedFullTask(TERMINAL, ago(HOUR), ago(3 * DAY));
  ids.liveAncient = await seedFullTask(LIVE, ago(60 * DAY));
  ids.interruptedAncient = await seedFullTask('TASK_STATE_INPUT_REQUIRED', ago(60 * DAY));
  ids.pushTimeline = await seedFullTask(LIVE, ago(HOUR));
  await seedDeliveries(db, {
    tenantId: T,
    taskId: ids.pushTimeline,
    configId: 'hook',
    seqs: [4],
    status: 'delivered',
    deliveredAt: ago(7 * DAY + 1),
  });
  await seedDeliveries(db, {
    tenantId: T,
    taskId: ids.pushTimeline,
    configId: 'hook',
    seqs: [5],
    status: 'delivered',
    deliveredAt: ago(7 * DAY),
  });
  await seedDeliveries(db, {
    tenantId: T,
    taskId: ids.pushTimeline,
    configId: 'hook',
    seqs: [6],
    status: 'dead',
    createdAt: ago(90 * DAY),
  });

  for (const [messageId, at] of [
    ['expired', ago(DAY + 1)],
    ['at-cutoff', ago(DAY)],
    ['fresh', ago(HOUR)],
  ] as const) {
    await db
      .insertInto('idempotency_keys')
      .values({
        tenant_id: T,
        message_id: messageId,
        principal: 'alice',
        task_id: ids.liveAncient,
        created_at: at,
      })
      .execute();
  }

  for (const [owner, key, at] of [
    ['alice', 'expired', ago(30 * DAY + 1)],
    ['alice', 'at-cutoff', ago(30 * DAY)],
    ['alice', 'fresh', ago(HOUR)],
    // Another principal's conversation under the same contextId and key: not expired.
    ['bob', 'expired', ago(HOUR)],
  ] as const) {
    await db
      .insertInto('context_memory')
      .values({ tenant_id: T, agent_id: 'a', owner, context_id: 'c', key, value: '"x"', updated_at: at })
      .execute();
  }

  result = await runRetention(db, { now: NOW, batchSize: 2 });
});
afterAll(async () => {
  await testDb.drop();
});

describe('retention removes exactly what has expired', () => {
  it('deletes terminal tasks last updated before the TTL, in every terminal state, with all their rows', async () => {
    for (const name of ['expiredCompleted', 'expiredFailed', 'expiredCanceled', 'expiredRejected']) {
      const id = ids[name]!;
      expect({
        name,
        tasks: await rows('tasks', id),
        messages: await rows('task_messages', id),
        artifacts: await rows('artifact_chunks', id),
        configs: await rows('push_configs', id),
        events: await eventSeqs(id),
        deliveries: await deliverySeqs(id),
      }).toEqual({ name, tasks: 0, messages: 0, artifacts: 0, configs: 0, events: [], deliveries: [] });
    }
  });

  it('keeps a terminal task exactly at the cutoff, and live or interrupted tasks however old', async () => {
    for (const name of [
      'terminalAtCutoff',
      'endedDaysAgo',
      'endedJustNow',
      'liveAncient',
      'interruptedAncient',
    ]) {
      const id = ids[name]!;
      expect({
        name,
        tasks: await rows('tasks', id),
        messages: await rows('task_messages', id),
        artifacts: await rows('artifact_chunks', id),
        configs: await rows('push_configs', id),
      }).toEqual({ name, tasks: 1, messages: 2, artifacts: 1, configs: 1 });
    }
  });

  it('prunes the event log of tasks that ended before the event TTL, except events a pending or dead push still needs', async () => {
    // Seq 1 was delivered; seq 2 is a dead letter (replayable until its task goes), seq 3 pending.
    expect(await eventSeqs(ids.terminalAtCutoff!)).toEqual([2, 3]);
    expect(await eventSeqs(ids.endedDaysAgo!)).toEqual([2, 3]);
  });

  it('keeps the whole log of live and interrupted tasks, and of a task that ended within the TTL', async () => {
    expect(await eventSeqs(ids.liveAncient!)).toEqual([1, 2, 3]);
    expect(await eventSeqs(ids.interruptedAncient!)).toEqual([1, 2, 3]);
    expect(await eventSeqs(ids.endedJustNow!)).toEqual([1, 2, 3]);
  });

  it('deletes delivered pushes older than their TTL and keeps pending and dead ones', async () => {
    expect(await deliverySeqs(ids.pushTimeline!)).toEqual([1, 2, 3, 5, 6]);
  });

  it('deletes idempotency keys past the retry horizon only', async () => {
    const left = await db.selectFrom('idempotency_keys').select('message_id').orderBy('message_id').execute();
    expect(left.map((r) => r.message_id)).toEqual(['at-cutoff', 'fresh']);
  });

  it('reports what it deleted, per table', () => {
    expect(result).toEqual({
      tasks: 4,
      taskMessages: 8,
      artifactChunks: 4,
      taskEvents: 4 * 3 + 2 * 1,
      pushConfigs: 4,
      pushDeliveries: 4 * 3 + 1,
      idempotencyKeys: 1,
      contextMemory: 1,
    });
  });

  it("deletes agents' context memory not written for its TTL only", async () => {
    const left = await db
      .selectFrom('context_memory')
      .select(['owner', 'key'])
      .orderBy('owner')
      .orderBy('key')
      .execute();
    expect(left.map((r) => `${r.owner}:${r.key}`)).toEqual(['alice:at-cutoff', 'alice:fresh', 'bob:expired']);
  });

  it('a second run deletes nothing', async () => {
    expect(Object.values(await runRetention(db, { now: NOW, batchSize: 2 })).every((n) => n === 0)).toBe(
      true,
    );
  });
});
