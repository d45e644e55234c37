import { TaskState } from '@switchyard/protocol';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { PostgresAdminStore } from '../src/admin/index.ts';
import { LIVE_TASK_COUNT_CAP } from '../src/admin/delete-agent.ts';
import { newTask, tenant, useTaskTestEnv } from './task-fixtures.ts';

// Deleting an agent whose tasks are not finished would strand them: nobody could read, cancel or
// continue them through the agent, retention never removes a live task, and an agent registered
// again under the id would continue them with its own executor.
const env = useTaskTestEnv();
const card = { name: 'Busy', description: 'works', version: '1.0.0', skills: [] };

async function setUp(): Promise<{ t: string; admin: PostgresAdminStore }> {
  const admin = new PostgresAdminStore({ db: env.db, secrets: env.secrets });
  const t = tenant();
  await admin.createTenant({ id: t, name: t });
  await admin.upsertAgent({ tenantId: t, id: 'busy', card, executor: 'slow' });
  return { t, admin };
}

async function taskIn(t: string, agentId: string, state: TaskState, tenantId = t): Promise<string> {
  const input = newTask(tenantId, { agentId });
  await env.store.createTask(input);
  if (state !== TaskState.SUBMITTED)
    await sql`UPDATE tasks SET state = ${state} WHERE tenant_id = ${tenantId} AND id = ${input.id}`.execute(
      env.db,
    );
  return input.id;
}

describe('deleteAgent with live tasks', () => {
  it('refuses while a task is submitted, working or waiting for input or auth, and counts them', async () => {
    const { t, admin } = await setUp();
    const live = [TaskState.SUBMITTED, TaskState.WORKING, TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED];
    const ids = [];
    for (const state of live) ids.push(await taskIn(t, 'busy', state));
    // Finished tasks, another agent's and another tenant's same-named agent's are not counted.
    for (const state of [TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED])
      await taskIn(t, 'busy', state);
    await taskIn(t, 'other', TaskState.WORKING);
    await taskIn(t, 'busy', TaskState.WORKING, tenant());

    expect(await admin.deleteAgent(t, 'busy')).toEqual({ liveTasks: 4, atLeast: false });
    expect(await admin.getAgent(t, 'busy')).not.toBeNull();

    await sql`UPDATE tasks SET state = ${TaskState.CANCELED} WHERE tenant_id = ${t} AND id IN (${sql.join(ids.slice(1))})`.execute(
      env.db,
    );
    expect(await admin.deleteAgent(t, 'busy')).toEqual({ liveTasks: 1, atLeast: false });
    await sql`UPDATE tasks SET state = ${TaskState.COMPLETED} WHERE tenant_id = ${t} AND id = ${ids[0]}`.execute(
      env.db,
    );
    expect(await admin.deleteAgent(t, 'busy')).toBe('deleted');
    expect(await admin.getAgent(t, 'busy')).toBeNull();
    expect(await admin.deleteAgent(t, 'busy')).toBe('absent');
  });

  it('an unknown agent is absent even when tasks name it; past the cap the count says "at least"', async () => {
    const { t, admin } = await setUp();
    await taskIn(t, 'gone', TaskState.WORKING);
    expect(await admin.deleteAgent(t, 'gone')).toBe('absent');
    await sql`
      INSERT INTO tasks (tenant_id, id, context_id, agent_id, owner, visibility, state, version, status_timestamp)
      SELECT ${t}, gen_random_uuid(), 'c', 'busy', 'alice', 'task', ${TaskState.WORKING}, 1, now()
      FROM generate_series(1, ${LIVE_TASK_COUNT_CAP + 5})
    `.execute(env.db);
    expect(await admin.deleteAgent(t, 'busy')).toEqual({ liveTasks: LIVE_TASK_COUNT_CAP, atLeast: true });
  });
});
