import { TaskState } from '@switchyard/protocol';
import { describe, expect, it } from 'vitest';
import { echoAgent, runAgentForTest } from '../src/index.ts';

describe('echo agent', () => {
  it('answers with a Task holding one "echo" artifact of the text parts, then completes', async () => {
    const result = await runAgentForTest(echoAgent, [
      { text: 'hello', mediaType: 'text/plain' },
      { data: { ignored: true } },
      { text: 'world' },
    ]);
    expect(result.outcome).toBe('task');
    expect(result.task.state).toBe(TaskState.COMPLETED);
    expect(result.task.artifacts).toEqual([
      {
        artifactId: 'echo',
        name: 'echo',
        parts: [{ text: 'hello', mediaType: 'text/plain' }, { text: 'world' }],
      },
    ]);
    const chunks = result.harness.chunks(result.taskId, 'echo');
    expect(chunks.map((chunk) => [chunk.append, chunk.lastChunk])).toEqual([[false, true]]);
  });

  it('answers exactly "reply" with a Message echoing it and no task', async () => {
    const result = await runAgentForTest(echoAgent, 'reply');
    expect(result.outcome).toBe('message');
    expect(result.reply?.parts).toEqual([{ text: 'reply' }]);
    expect(result.task.visible).toBe(false);
    expect(result.calls.map((call) => call.kind)).toEqual(['reply']);
  });

  it('treats text that only contains "reply" as a task', async () => {
    const result = await runAgentForTest(echoAgent, 'reply please');
    expect(result.outcome).toBe('task');
  });

  it('rejects a message without text parts', async () => {
    const result = await runAgentForTest(echoAgent, [{ data: { n: 1 } }]);
    expect(result.task.state).toBe(TaskState.REJECTED);
  });
});
