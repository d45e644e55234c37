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
