import { TaskState } from '@switchyard/protocol';
import { describe, expect, it } from 'vitest';
import { AgentHarness, RunEndedError, runAgentForTest, type Agent, type AgentContext } from '../src/index.ts';

/** A throwaway agent whose behaviour each test supplies. */
function agentDoing(execute: (ctx: AgentContext) => Promise<void>, quickReplyWindowMs?: number): Agent {
  const agent: Agent = {
    executor: 'test',
    card: {
      name: 't',
      description: 't',
      version: '1.0.0',
      skills: [],
      defaultInputModes: [],
      defaultOutputModes: [],
    },
    execute,
  };
  if (quickReplyWindowMs !== undefined) agent.quickReplyWindowMs = quickReplyWindowMs;
  return agent;
}

describe('AgentHarness', () => {
  it('answers with a Message when the agent replies before any task action', async () => {
    const result = await runAgentForTest(
      agentDoing((ctx) => ctx.reply('hi')),
      'hello',
    );
    expect(result.outcome).toBe('message');
    expect(result.reply?.parts).toEqual([{ text: 'hi' }]);
    expect(result.reply?.role).toBe('ROLE_AGENT');
    expect(result.task.visible).toBe(false);
  });

  it('makes reply complete the task once the task is visible', async () => {
    const agent = agentDoing(async (ctx) => {
      await ctx.setStatus('working on it');
      await ctx.reply('done');
    });
    const result = await runAgentForTest(agent, 'go');
    expect(result.outcome).toBe('task');
    expect(result.task.state).toBe(TaskState.COMPLETED);
    expect(result.task.statusMessage?.parts).toEqual([{ text: 'done' }]);
    expect(result.calls.find((call) => call.kind === 'reply')).toMatchObject({ answeredAs: 'task' });
  });

  it('answers with a Task when the request was sent with returnImmediately', async () => {
    const result = await runAgentForTest(
      agentDoing((ctx) => ctx.reply('hi')),
      'hello',
      { returnImmediately: true },
    );
    expect(result.outcome).toBe('task');
    expect(result.task.state).toBe(TaskState.COMPLETED);
  });

  it('completes a task whose execute returned without ending it', async () => {
    const result = await runAgentForTest(
      agentDoing(async () => undefined),
      'x',
    );
    expect(result.task.state).toBe(TaskState.COMPLETED);
    expect(result.calls.at(-1)).toMatchObject({ kind: 'platform', event: 'auto-completed' });
  });

  it('throws RunEndedError for calls after the run ended, and records them as refused', async () => {
    let thrown: unknown;
    const agent = agentDoing(async (ctx) => {
      await ctx.complete('first');
      try {
        await ctx.fail('second');
      } catch (error) {
        thrown = error;
      }
    });
    const result = await runAgentForTest(agent, 'x');
    expect(thrown).toBeInstanceOf(RunEndedError);
    expect(thrown).toMatchObject({ reason: 'finished' });
    expect(result.task.state).toBe(TaskState.COMPLETED);
    expect(result.calls.at(-1)).toMatchObject({
      kind: 'fail',
      status: 'refused',
      refusedBecause: 'finished',
    });
  });

  it('composes artifacts from chunks with append and lastChunk', async () => {
    const agent = agentDoing(async (ctx) => {
      await ctx.emitArtifact({ artifactId: 'a', name: 'a.txt', parts: [{ text: 'one' }] });
      await ctx.emitArtifact({ artifactId: 'a', parts: [{ text: 'two' }], append: true, lastChunk: true });
      await ctx.emitArtifact({ artifactId: 'b', parts: [{ text: 'old' }] });
      await ctx.emitArtifact({ artifactId: 'b', parts: [{ text: 'new' }], append: false });
    });
    const { task } = await runAgentForTest(agent, 'x');
    expect(task.artifacts).toEqual([
      { artifactId: 'a', name: 'a.txt', parts: [{ text: 'one' }, { text: 'two' }] },
      { artifactId: 'b', parts: [{ text: 'new' }] },
    ]);
  });

  it('rejects an append to an artifact that was never started', async () => {
    const agent = agentDoing((ctx) =>
      ctx.emitArtifact({ artifactId: 'a', parts: [{ text: 'x' }], append: true }),
    );
    await expect(runAgentForTest(agent, 'x')).rejects.toThrow(/append before any chunk/);
  });

  it('fails the task with a safe message when told to, instead of rethrowing', async () => {
    const agent = agentDoing(() => Promise.reject(new Error('secret stack detail')));
    const result = await runAgentForTest(agent, 'x', { onAgentError: 'fail-task' });
    expect(result.task.state).toBe(TaskState.FAILED);
    expect(result.task.statusMessage?.parts).toEqual([{ text: 'The agent failed.' }]);
    expect(result.error).toBeInstanceOf(Error);
  });

  it('continues an interrupted task with its question, then the follow-up, appended to history', async () => {
    const agent = agentDoing(async (ctx) => {
      if (ctx.task.history.length === 1) await ctx.requestInput('name?');
      else await ctx.complete(`hello ${ctx.message.parts[0]?.text ?? ''}`);
    });
    const harness = new AgentHarness(agent);
    const first = await harness.send('start');
    expect(first.task.state).toBe(TaskState.INPUT_REQUIRED);
    const second = await harness.continueTask(first.taskId, 'Ada');
    expect(second.task.state).toBe(TaskState.COMPLETED);
    expect(second.task.history.map((message) => message.parts)).toEqual([
      [{ text: 'start' }],
      [{ text: 'name?' }],
      [{ text: 'Ada' }],
    ]);
    expect(second.task.history[1]?.role).toBe('ROLE_AGENT');
    // The question left the status for the history; the completion set its own message.
    expect(second.task.statusMessage?.parts).toEqual([{ text: 'hello Ada' }]);
    expect(second.task.history[2]).toMatchObject({ taskId: first.taskId, contextId: first.contextId });
    await expect(harness.continueTask(first.taskId, 'again')).rejects.toThrow(/not interrupted/);
  });

  it('a continued task completed without a message shows no status message, as on the platform', async () => {
    const agent = agentDoing(async (ctx) => {
      if (ctx.task.history.length === 1) await ctx.requestInput('how many?');
      else await ctx.complete();
    });
    const harness = new AgentHarness(agent);
    const first = await harness.send('start');
    const second = await harness.continueTask(first.taskId, '2');
    expect(second.task.statusMessage).toBeUndefined();
    expect(second.task.history.map((m) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT', 'ROLE_USER']);
  });

  it('shares memory between tasks of one context and keeps contexts apart', async () => {
    const agent = agentDoing(async (ctx) => {
      const count = (await ctx.memory.get<number>('count')) ?? 0;
      await ctx.memory.set('count', count + 1);
    });
    const harness = new AgentHarness(agent);
    await harness.send('a', { contextId: 'c1' });
    await harness.send('b', { contextId: 'c1' });
    await harness.send('c', { contextId: 'c2' });
    expect(harness.memory('c1').get('count')).toBe(2);
    expect(harness.memory('c2').get('count')).toBe(1);
  });

  it('cancels a run: the signal aborts, the task is CANCELED and later writes are refused', async () => {
    const agent = agentDoing(async (ctx) => {
      await ctx.setStatus('started');
      // The cancel lands during setStatus, so the signal may already be aborted here.
      if (!ctx.signal.aborted)
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      await ctx.setStatus('too late');
    });
    const harness = new AgentHarness(agent);
    const run = harness.start('x', {
      onCall: (call, current) => call.kind === 'setStatus' && current.cancel(),
    });
    const result = await run.result;
    expect(result.task.state).toBe(TaskState.CANCELED);
    expect(result.calls.map((call) => [call.kind, call.status])).toEqual([
      ['setStatus', 'applied'],
      ['platform', 'applied'],
      ['setStatus', 'refused'],
    ]);
  });

  it('re-runs a crashed task with attempt + 1 and skips chunks a previous run stored', async () => {
    const attempts: number[] = [];
    const agent = agentDoing(async (ctx) => {
      attempts.push(ctx.task.attempt);
      await ctx.emitArtifact({ artifactId: 'a', parts: [{ text: '1' }] });
      await ctx.emitArtifact({ artifactId: 'a', parts: [{ text: '2' }], append: true, lastChunk: true });
      await ctx.complete();
    });
    const harness = new AgentHarness(agent);
    const crashed = await harness.start('x', {
      onCall: (call, run) => call.kind === 'emitArtifact' && run.loseLease(),
    }).result;
    expect(crashed.task.state).toBe(TaskState.WORKING);
    const rerun = await harness.rerun(crashed.taskId);
    expect(attempts).toEqual([1, 2]);
    expect(rerun.calls.filter((call) => call.kind === 'emitArtifact').map((call) => call.status)).toEqual([
      'skipped',
      'applied',
    ]);
    expect(rerun.task.artifacts).toEqual([{ artifactId: 'a', parts: [{ text: '1' }, { text: '2' }] }]);
    expect(rerun.task.state).toBe(TaskState.COMPLETED);
  });

  it('a turn after an answer writes its chunks again: only re-runs of the same turn skip them', async () => {
    const agent = agentDoing(async (ctx) => {
      const answered = ctx.task.history.length > 1;
      await ctx.emitArtifact({ artifactId: 'draft', parts: [{ text: answered ? 'v2' : 'v1' }] });
      if (!answered) await ctx.requestInput('good?');
      else await ctx.complete();
    });
    const harness = new AgentHarness(agent);
    const first = await harness.send('write');
    expect(first.task.state).toBe(TaskState.INPUT_REQUIRED);
    const second = await harness.continueTask(first.taskId, 'make it better');
    expect(second.calls.filter((call) => call.kind === 'emitArtifact').map((call) => call.status)).toEqual([
      'applied',
    ]);
    expect(second.task.artifacts).toEqual([{ artifactId: 'draft', parts: [{ text: 'v2' }] }]);
  });

  it('upgrades the request to a visible Task when the quick-reply window lapses', async () => {
    const agent = agentDoing(async (ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await ctx.reply('late');
    }, 1);
    const result = await runAgentForTest(agent, 'x');
    expect(result.outcome).toBe('task');
    expect(result.calls.map((call) => call.kind)).toEqual(['platform', 'reply']);
  });

  it('waits for a call of a run in flight', async () => {
    const agent = agentDoing(async (ctx) => {
      await ctx.setStatus('one');
      await ctx.setStatus('two');
    });
    const run = new AgentHarness(agent).start('x');
    const second = await run.waitForCall(
      (call) => call.kind === 'setStatus' && call.message.parts[0]?.text === 'two',
    );
    expect(second).toMatchObject({ kind: 'setStatus', status: 'applied' });
    expect((await run.result).task.state).toBe(TaskState.COMPLETED);
  });

  it('appends the agent status messages to history only when asked to', async () => {
    const agent = agentDoing((ctx) => ctx.requestInput('more?'));
    const plain = await runAgentForTest(agent, 'x');
    const withAgent = await runAgentForTest(agent, 'x', { agentMessagesInHistory: true });
    expect(plain.task.history.map((message) => message.role)).toEqual(['ROLE_USER']);
    expect(withAgent.task.history.map((message) => message.role)).toEqual(['ROLE_USER', 'ROLE_AGENT']);
  });

  it('gives the agent a copy of the task, not the stored one', async () => {
    const agent = agentDoing(async (ctx) => {
      ctx.task.history.length = 0;
    });
    const result = await runAgentForTest(agent, 'x');
    expect(result.task.history).toHaveLength(1);
  });
});
