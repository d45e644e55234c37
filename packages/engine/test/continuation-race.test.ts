import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBundledAgent, type Agent } from '@switchyard/agents';
import { isA2AErrorOfKind, TaskState, type Message } from '@switchyard/protocol';
import type { Dispatch } from '@switchyard/queue';
import { createDb, createSecretBox, PostgresPushConfigStore } from '@switchyard/store';
import { silentLogger } from '@switchyard/telemetry';
import { waitFor } from '@switchyard/testing';
import { TaskService } from '../src/index.ts';
import {
  alice,
  quietWriter,
  SECRET,
  startPlatform,
  storeWith,
  userMessage,
  type Platform,
} from './platform-fixture.ts';

// Found in review: two answers to one INPUT_REQUIRED question, from two gateways. The loser's CAS
// conflicted and it read the task again; when the agent had by then asked its next question (the
// winner's answer ran), the loser's answer to question 1 was taken as the answer to question 2,
// and both clients were told they had succeeded. In a serial order the loser arrived while the
// task was WORKING, and is refused as such a continuation is.
let p: Platform;
/** Asks a question every turn, numbered by the answers it has had. */
const asker: Agent = {
  executor: 'asker',
  card: {
    name: 'asker',
    description: 'asks every turn',
    version: '1.0.0',
    skills: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  },
  async execute(ctx) {
    const turn = ctx.task.history.filter((m) => m.role === 'ROLE_USER').length;
    await ctx.requestInput({ parts: [{ text: `question ${turn}` }] });
  },
};

beforeAll(async () => {
  p = await startPlatform();
  await p.registerAgent(asker);
  p.startWorker({ concurrency: 2, findAgent: (e) => (e === 'asker' ? asker : findBundledAgent(e)) });
});
afterAll(() => p.close());

async function askingTask(): Promise<string> {
  const sent = await p.service.send(alice, await p.agent('asker'), {
    message: userMessage('start'),
    configuration: { returnImmediately: true },
  });
  if (!('task' in sent)) throw new Error('expected a task');
  const taskId = sent.task.id;
  await waitFor(
    async () => (await p.store.getTaskRecord('acme', taskId))?.state === TaskState.INPUT_REQUIRED,
  );
  return taskId;
}

/**
 * Gateway B's answer, held up right after its read of the task (in its history-size check, as a
 * GC pause or a slow query would) until `release`; `held` resolves once it is held there.
 */
function stalledAnswer(message: Message) {
  let held!: () => void;
  const heldThere = new Promise<void>((resolve) => (held = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const store = storeWith(p.store, 'historyBytes', (historyBytes) => async (tenantId, taskId) => {
    held();
    await gate;
    return historyBytes(tenantId, taskId);
  });
  const dispatched: Dispatch[] = [];
  const gatewayB = new TaskService({
    store,
    pushConfigs: new PostgresPushConfigStore({ db: createDb(p.db.pool), secrets: createSecretBox(SECRET) }),
    writer: quietWriter(store),
    dispatcher: { enqueue: async (d) => void dispatched.push(d) },
    hub: { watch: () => () => undefined },
    agents: { getAgent: (tenantId, agentId) => p.admin.getAgent(tenantId, agentId) },
    config: p.config,
    urlPolicy: { allowCidrs: [], allowHttp: true },
    log: silentLogger(),
  });
  const answered = (async () =>
    gatewayB.send(alice, await p.agent('asker'), { message, configuration: { returnImmediately: true } }))();
  return {
    held: heldThere,
    dispatched,
    /** Lets B go on; its outcome (the answer, or the error it was refused with). */
    release: () => {
      release();
      return answered.then(
        (ok) => ({ ok }),
        (err: unknown) => ({ err }),
      );
    },
  };
}

/** A answers (and wins); waits until the run that answer started asked its next question. */
async function answerAndWaitForNextQuestion(taskId: string, message: Message): Promise<void> {
  const before = (await p.store.getTaskRecord('acme', taskId))!;
  const sent = await p.service.send(alice, await p.agent('asker'), {
    message,
    configuration: { returnImmediately: true },
  });
  expect('task' in sent).toBe(true);
  await waitFor(async () => {
    const now = (await p.store.getTaskRecord('acme', taskId))!;
    return now.state === TaskState.INPUT_REQUIRED && now.version > before.version;
  });
}

const texts = (history: Message[]) =>
  history.map((m) => `${m.role}: ${m.parts.map((part) => ('text' in part ? part.text : '')).join('')}`);

describe('two answers to one input request', () => {
  it('the loser is refused as a continuation sent while the task works, not applied to the next question', async () => {
    const taskId = await askingTask();
    const b = stalledAnswer(userMessage('B answers question 1', { taskId }));
    await b.held;
    await answerAndWaitForNextQuestion(taskId, userMessage('A answers question 1', { taskId }));
    const outcome = await b.release();

    expect('err' in outcome).toBe(true);
    const err = (outcome as { err: unknown }).err;
    // The very error a continuation sent while the task is WORKING gets.
    expect(isA2AErrorOfKind(err, 'UnsupportedOperation')).toBe(true);
    expect((err as Error).message).toBe(
      `task ${taskId} is ${TaskState.WORKING}; send a follow-up once it asks for input`,
    );
    expect(b.dispatched).toEqual([]);
    expect(texts(await p.store.getHistory('acme', taskId))).toEqual([
      'ROLE_USER: start',
      'ROLE_AGENT: question 1',
      'ROLE_USER: A answers question 1',
    ]);
    const record = (await p.store.getTaskRecord('acme', taskId))!;
    expect(record.state).toBe(TaskState.INPUT_REQUIRED);
    expect(record.statusMessage?.parts).toEqual([{ text: 'question 2' }]);
  });

  it('a retry of the winning answer that lost the race is still answered as a retry', async () => {
    const taskId = await askingTask();
    const answer = userMessage('the answer to question 1', { taskId });
    const b = stalledAnswer(answer);
    await b.held;
    await answerAndWaitForNextQuestion(taskId, answer);
    const outcome = await b.release();

    expect(outcome).toMatchObject({ ok: { task: { id: taskId } } });
    expect(b.dispatched).toEqual([]);
    const history = await p.store.getHistory('acme', taskId);
    expect(history.filter((m) => m.messageId === answer.messageId)).toHaveLength(1);
  });
});
