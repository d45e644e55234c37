import { afterAll, beforeAll } from 'vitest';
import { randomUUID } from 'node:crypto';
import { canTransition, TaskState, type Message, type StreamResponse } from '@switchyard/protocol';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { sql } from 'kysely';
import { createDb, type Db } from '../src/db.ts';
import { PostgresTaskStore } from '../src/postgres-task-store.ts';
import { createSecretBox, type SecretBox } from '../src/secret-box.ts';
import type { CreateTaskInput, TaskRecord } from '../src/task-store.ts';

/** Shared setup for the task-* tests: one cloned database per test file. */
export interface TaskTestEnv {
  testDb: TestDatabase;
  db: Db;
  secrets: SecretBox;
  store: PostgresTaskStore;
}

export async function openTaskTestEnv(): Promise<TaskTestEnv> {
  const testDb = await createTestDatabase();
  // drop() ends the pool and then DROPs the database WITH (FORCE), but pg-pool reports "ended"
  // before its clients' sockets close; the forced drop then kills them and their FATAL 57P01 would
  // surface as an uncaught error. Only idle clients report here, and only at teardown.
  testDb.pool.on('error', () => {});
  const db = createDb(testDb.pool);
  const secrets = createSecretBox('task-store-test-secret-key');
  return { testDb, db, secrets, store: new PostgresTaskStore({ db, secrets }) };
}

/**
 * The file's task test environment: opened before its tests (beforeAll), dropped after them
 * (afterAll). The object is filled in when it opens, so tests use it as they would the opened one.
 */
export function useTaskTestEnv(): TaskTestEnv {
  const env = {} as TaskTestEnv;
  beforeAll(async () => {
    Object.assign(env, await openTaskTestEnv());
  });
  afterAll(async () => {
    await env.testDb?.drop();
  });
  return env;
}

/** A tenant id of its own per test, so tests in one file never see each other's rows. */
export function tenant(): string {
  return `t-${randomUUID().slice(0, 8)}`;
}

export function userMessage(text: string, overrides: Partial<Message> = {}): Message {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...overrides };
}

export function agentMessage(text: string): Message {
  return { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text }] };
}

export function newTask(tenantId: string, overrides: Partial<CreateTaskInput> = {}): CreateTaskInput {
  const id = overrides.id ?? randomUUID();
  const contextId = overrides.contextId ?? randomUUID();
  return {
    tenantId,
    id,
    contextId,
    agentId: 'echo',
    owner: 'alice',
    visibility: 'task',
    message: userMessage('hello'),
    event: { task: { id, contextId, status: { state: TaskState.SUBMITTED } } },
    ...overrides,
  };
}

export function statusEvent(
  task: Pick<TaskRecord, 'id' | 'contextId'>,
  state: TaskState,
  message?: Message,
): StreamResponse {
  return {
    statusUpdate: {
      taskId: task.id,
      contextId: task.contextId,
      status: { state, ...(message ? { message } : {}), timestamp: new Date().toISOString() },
    },
  };
}

/** Creates a task and returns its record (the create must not be a duplicate). */
export async function createdTask(store: PostgresTaskStore, input: CreateTaskInput): Promise<TaskRecord> {
  const result = await store.createTask(input);
  if (!result.created) throw new Error('expected a new task');
  return result.task;
}

/**
 * A new task moved to `state` along legal edges (through WORKING when `state` cannot follow
 * SUBMITTED), as the engine would: the store refuses a shortcut such as SUBMITTED → COMPLETED.
 */
export async function taskInState(
  store: PostgresTaskStore,
  input: CreateTaskInput,
  state: TaskState,
): Promise<TaskRecord> {
  let task = await createdTask(store, input);
  const path =
    state === TaskState.SUBMITTED
      ? []
      : canTransition(task.state, state)
        ? [state]
        : [TaskState.WORKING, state];
  for (const next of path)
    task = await store.changeTask({
      tenantId: task.tenantId,
      taskId: task.id,
      expectedVersion: task.version,
      patch: { state: next },
      event: statusEvent(task, next),
    });
  return task;
}

/** Makes a lease lapse now instead of waiting for it (tests assert no timings). */
export async function lapseLease(db: Db, tenantId: string, taskId: string): Promise<void> {
  await db
    .updateTable('tasks')
    .set({ lease_expires_at: sql<Date>`now() - interval '1 second'` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', taskId)
    .execute();
}

export async function eventSeqs(db: Db, tenantId: string, taskId: string): Promise<number[]> {
  const rows = await db
    .selectFrom('task_events')
    .select('seq')
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .orderBy('seq')
    .execute();
  return rows.map((r) => r.seq);
}

export async function deliverySeqs(
  db: Db,
  tenantId: string,
  taskId: string,
): Promise<Array<{ config_id: string; seq: number }>> {
  return db
    .selectFrom('push_deliveries')
    .select(['config_id', 'seq'])
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .orderBy('seq')
    .orderBy('config_id')
    .execute();
}
