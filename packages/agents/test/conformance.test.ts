import { TaskState, type Part } from '@switchyard/protocol';
import { describe, expect, it } from 'vitest';
import { AgentHarness, conformanceAgent, runAgentForTest } from '../src/index.ts';

const withId = (messageId: string) => ({ messageId, role: 'ROLE_USER' as const, parts: [{ text: 'tck' }] });
const run = (messageId: string) => runAgentForTest(conformanceAgent, withId(`${messageId}-s1`));

describe('conformance agent (the A2A TCK scenarios, by messageId prefix)', () => {
  it('completes tck-complete-task with "Hello from TCK", and asks for input on tck-input-required', async () => {
    const done = await run('tck-complete-task');
    expect(done.task.state).toBe(TaskState.COMPLETED);
    expect(done.task.statusMessage?.parts).toEqual([{ text: 'Hello from TCK' }]);
    const waiting = await run('tck-input-required');
    expect(waiting.task.state).toBe(TaskState.INPUT_REQUIRED);
    expect((await run('tck-auth-required')).task.state).toBe(TaskState.AUTH_REQUIRED);
  });

  it('a follow-up to an input-required task runs the follow-up’s own scenario', async () => {
    const harness = new AgentHarness(conformanceAgent);
    const first = await harness.send(withId('tck-input-required-s1'));
    const second = await harness.continueTask(first.taskId, withId('tck-complete-task-s1'));
    expect(second.task.state).toBe(TaskState.COMPLETED);
  });

  it('answers tck-message-response with a Message and rejects tck-reject-task', async () => {
    const reply = await run('tck-message-response');
    expect(reply.outcome).toBe('message');
    expect(reply.reply?.parts).toEqual([{ text: 'Direct message response' }]);
    expect((await run('tck-reject-task')).task.state).toBe(TaskState.REJECTED);
  });

  it.each<[string, Part]>([
    ['tck-artifact-text', { text: 'Generated text content' }],
    [
      'tck-artifact-file-url',
      { url: 'https://example.com/output.txt', mediaType: 'text/plain', filename: 'output.txt' },
    ],
    ['tck-artifact-file', { raw: 'dGNr', mediaType: 'text/plain', filename: 'output.txt' }],
    ['tck-artifact-data', { data: { key: 'value', count: 42 } }],
    ['tck-stream-artifact-text', { text: 'Streamed text content' }],
    ['tck-stream-001', { text: 'Stream hello from TCK' }],
  ])('%s: one artifact with its part, then COMPLETED', async (prefix, part) => {
    const result = await run(prefix);
    expect(result.task.state).toBe(TaskState.COMPLETED);
    expect(result.task.artifacts.map((a) => a.parts)).toEqual([[part]]);
  });

  it('streams tck-stream-artifact-chunked as two appended chunks of one artifact', async () => {
    const result = await run('tck-stream-artifact-chunked');
    expect(result.task.artifacts.map((a) => a.parts)).toEqual([[{ text: 'chunk-1 ' }, { text: 'chunk-2' }]]);
    const chunks = result.harness.chunks(result.taskId, 'chunked');
    expect(chunks.map((c) => [c.append ?? false, c.lastChunk ?? false])).toEqual([
      [false, false],
      [true, true],
    ]);
  });

  it('holds tck-delayed-complete in WORKING, then completes it with "Done after delay"', async () => {
    const result = await run('tck-delayed-complete');
    expect(result.task.state).toBe(TaskState.COMPLETED);
    expect(result.task.statusMessage?.parts).toEqual([{ text: 'Done after delay' }]);
  });

  it('keeps test-resubscribe-message-id working until canceled; completes anything else with its id', async () => {
    const harness = new AgentHarness(conformanceAgent);
    const waiting = harness.start(withId('test-resubscribe-message-id-1'));
    await new Promise((resolve) => setImmediate(resolve));
    waiting.cancel();
    expect((await waiting.result).task.state).toBe(TaskState.CANCELED);
    const other = await run('something-else');
    expect(other.task.state).toBe(TaskState.COMPLETED);
    expect(other.task.statusMessage?.parts).toEqual([
      { text: 'Unhandled messageId prefix: something-else-s1' },
    ]);
  });
});

describe('conformance agent (the newer suites’ behaviours, by the first text part)', () => {
  let n = 0;
  const said = (text: string) => ({ messageId: `m-${++n}`, role: 'ROLE_USER' as const, parts: [{ text }] });
  const say = (text: string) => runAgentForTest(conformanceAgent, said(text));

  it('completes, fails, rejects, asks for input and for authorization as named', async () => {
    expect((await say('tck-complete-task hello world')).task.state).toBe(TaskState.COMPLETED);
    const failed = await say('tck-task-failure');
    expect(failed.task.state).toBe(TaskState.FAILED);
    expect(failed.task.statusMessage?.parts).toEqual([
      { text: 'The task failed, as tck-task-failure asks.' },
    ]);
    expect((await say('tck-reject-task')).task.state).toBe(TaskState.REJECTED);
    expect((await say('tck-input-required')).task.state).toBe(TaskState.INPUT_REQUIRED);
    expect((await say('tck-auth-required please')).task.state).toBe(TaskState.AUTH_REQUIRED);
    expect((await say('tck-message-response')).outcome).toBe('message');
    expect((await say('tck-long-running')).task.state).toBe(TaskState.COMPLETED);
  });

  it('takes the whole name, so tck-artifact-file-url is not tck-artifact-file', async () => {
    const url = await say('tck-artifact-file-url');
    expect(url.task.artifacts.map((a) => a.parts)).toEqual([
      [{ url: 'https://example.com/output.txt', mediaType: 'text/plain', filename: 'output.txt' }],
    ]);
    const chunked = await say('tck-stream-chunked');
    expect(chunked.task.state).toBe(TaskState.COMPLETED);
    expect(chunked.harness.chunks(chunked.taskId, 'output').map((c) => [c.append, c.lastChunk])).toEqual([
      [false, false],
      [true, false],
      [true, true],
    ]);
  });

  it('tck-multi-turn asks again until a continuation starts with "done"; the behaviour is the task’s', async () => {
    const harness = new AgentHarness(conformanceAgent);
    const first = await harness.send(said('tck-multi-turn start'));
    expect(first.task.state).toBe(TaskState.INPUT_REQUIRED);
    const more = await harness.continueTask(first.taskId, said('here is more input'));
    expect(more.task.state).toBe(TaskState.INPUT_REQUIRED);
    const done = await harness.continueTask(first.taskId, said('done, thanks'));
    expect(done.task.state).toBe(TaskState.COMPLETED);
    // An authorization request goes on once the client comes back.
    const auth = await harness.send(said('tck-auth-required'));
    const resumed = await harness.continueTask(auth.taskId, said('authorized now'));
    expect(resumed.task.state).toBe(TaskState.COMPLETED);
  });

  it('tck-cancel stays WORKING until canceled', async () => {
    const harness = new AgentHarness(conformanceAgent);
    const waiting = harness.start(said('tck-cancel start'));
    await new Promise((resolve) => setImmediate(resolve));
    waiting.cancel();
    expect((await waiting.result).task.state).toBe(TaskState.CANCELED);
  });

  it('fails an unknown tck- name loudly; a messageId scenario still wins', async () => {
    const unknown = await say('tck-no-such-thing');
    expect(unknown.task.state).toBe(TaskState.FAILED);
    expect(unknown.task.statusMessage?.parts).toEqual([
      { text: 'Unknown conformance behaviour: tck-no-such-thing' },
    ]);
    const byId = await runAgentForTest(conformanceAgent, {
      ...said('tck-task-failure'),
      messageId: 'tck-complete-task-s9',
    });
    expect(byId.task.state).toBe(TaskState.COMPLETED);
  });
});
