import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEndedError } from '@switchyard/agents';
import { isA2AErrorOfKind, TaskState, type Task } from '@switchyard/protocol';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';
import { refusals, sizer } from './sizer-agent.ts';

// A task's artifacts and history have byte limits: every GetTask, ListTasks page and run start
// carries them whole, so without one an agent streaming without end, or a conversation of endless
// turns, grows every reader of the task with it.
const ARTIFACT_LIMIT = 2000;
const HISTORY_LIMIT = 4000;

let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ taskMaxArtifactBytes: ARTIFACT_LIMIT, taskMaxHistoryBytes: HISTORY_LIMIT });
  await p.registerAgent(sizer);
  p.startWorker({ findAgent: (executor) => (executor === 'sizer' ? sizer : undefined) });
});
afterAll(() => p.close());

async function send(text: string, taskId?: string): Promise<Task> {
  const agent = await p.agent('sizer');
  const sent = await p.service.send(alice, agent, { message: userMessage(text, taskId ? { taskId } : {}) });
  if (!('task' in sent)) throw new Error('expected a task');
  return sent.task;
}

const artifactChunks = async (taskId: string) =>
  (await p.store.readEvents('acme', taskId, 0, 100)).filter((e) => e.payload.artifactUpdate).length;

describe('TASK_MAX_ARTIFACT_BYTES', () => {
  it('fails the task at the chunk that would pass the limit, keeps the chunks before it, and does not retry', async () => {
    refusals.length = 0;
    const task = await send('emit 10');
    expect(task.status.state).toBe(TaskState.FAILED);
    expect(task.status.message?.parts).toEqual([
      { text: `The task's artifacts would pass their limit of ${ARTIFACT_LIMIT} bytes.` },
    ]);
    // Each chunk is about 470 bytes of JSON: four fit under 2000, the fifth is refused.
    expect(await artifactChunks(task.id)).toBe(4);
    const stored = await p.service.getTask(alice, 'sizer', task.id);
    expect(stored.artifacts).toHaveLength(4);
    expect(JSON.stringify(stored.artifacts).length).toBeLessThanOrEqual(ARTIFACT_LIMIT);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toBeInstanceOf(RunEndedError);
    const record = await p.store.getTaskRecord('acme', task.id);
    expect(record?.attempts).toBe(1);
    expect(record?.leaseOwner).toBeNull();
  });

  it('counts every chunk stored, also one that replaces its artifact: readers load them all', async () => {
    const task = await send('replace 10');
    expect(task.status.state).toBe(TaskState.FAILED);
    expect(await artifactChunks(task.id)).toBe(4);
    expect((await p.service.getTask(alice, 'sizer', task.id)).artifacts).toHaveLength(1);
  });

  it('counts the chunks earlier runs of the task stored', async () => {
    const first = await send('replace 3');
    expect(first.status.state).toBe(TaskState.INPUT_REQUIRED);
    expect(await artifactChunks(first.id)).toBe(3);
    const second = await send('replace 3', first.id);
    expect(second.status.state).toBe(TaskState.FAILED);
    expect(await artifactChunks(first.id)).toBe(4);
  });
});

describe('TASK_MAX_HISTORY_BYTES', () => {
  it('refuses the continuation that would pass the limit with InvalidParams, and changes nothing', async () => {
    const first = await send('emit 0');
    const turn = 'y'.repeat(1000);
    const taskId = first.id;
    // About 1,500 bytes a turn (the answer, and the question it answers): the third passes 4000.
    for (let k = 0; k < 2; k++) await send(`emit 0 ${turn}`, taskId);
    const before = await p.store.getTaskRecord('acme', taskId);
    const historyBefore = (await p.service.getTask(alice, 'sizer', taskId)).history;
    expect(before?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(historyBefore).toHaveLength(5);

    const refused = await send(`emit 0 ${turn}`, taskId).catch((err: unknown) => err);
    expect(isA2AErrorOfKind(refused, 'InvalidParams')).toBe(true);
    expect((refused as Error).message).toContain(`limit of ${HISTORY_LIMIT} bytes`);
    const after = await p.store.getTaskRecord('acme', taskId);
    expect(after?.version).toBe(before?.version);
    expect(after?.state).toBe(TaskState.INPUT_REQUIRED);
    expect((await p.service.getTask(alice, 'sizer', taskId)).history).toEqual(historyBefore);
    // A short answer still fits.
    expect((await send('emit 0', taskId)).status.state).toBe(TaskState.INPUT_REQUIRED);
  });

  it('refuses a first message past the limit: no answer could ever continue its task', async () => {
    const before = await p.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM tasks');
    const refused = await send(`emit 0 ${'z'.repeat(HISTORY_LIMIT)}`).catch((err: unknown) => err);
    expect(isA2AErrorOfKind(refused, 'InvalidParams')).toBe(true);
    expect((refused as Error).message).toContain(`limit of ${HISTORY_LIMIT} bytes`);
    const after = await p.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM tasks');
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
  });
});
