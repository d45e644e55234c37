import { TaskState } from '@switchyard/protocol';
import { describe, expect, it } from 'vitest';
import {
  AgentHarness,
  PROGRESS_ARTIFACT_ID,
  runAgentForTest,
  slowAgent,
  type RecordedCall,
} from '../src/index.ts';

const isChunk = (call: RecordedCall): boolean => call.kind === 'emitArtifact';

describe('slow agent', () => {
  it('declares a 300 ms quick-reply window', () => {
    expect(slowAgent.quickReplyWindowMs).toBe(300);
  });

  it('answers with a Message when it finishes within the window', async () => {
    const result = await runAgentForTest(slowAgent, 'go', { settings: { delayMs: 0 } });
    expect(result.outcome).toBe('message');
    expect(result.reply?.parts).toEqual([{ text: 'done after 0 ms' }]);
  });

  it('lands its reply in the Task the platform made when the window lapsed', async () => {
    // The upgrade timer (300 ms) fires before the 600 ms delay ends: Node runs timers by due time.
    const result = await runAgentForTest(slowAgent, 'go', { settings: { delayMs: 600 } });
    expect(result.outcome).toBe('task');
    expect(result.task.state).toBe(TaskState.COMPLETED);
    expect(result.task.statusMessage?.parts).toEqual([{ text: 'done after 600 ms' }]);
    expect(result.calls.map((call) => call.kind)).toEqual(['platform', 'reply']);
  });

  it('answers in the task when the upgrade happens at a chosen point', async () => {
    const harness = new AgentHarness(slowAgent, { autoUpgrade: false, settings: { delayMs: 50 } });
    const run = harness.start('go');
    run.upgrade();
    const result = await run.result;
    expect(result.calls.find((call) => call.kind === 'reply')).toMatchObject({ answeredAs: 'task' });
  });

  it('stops promptly when canceled, writing nothing after the cancel', async () => {
    const harness = new AgentHarness(slowAgent, { settings: { delayMs: 3_600_000, steps: 10 } });
    const run = harness.start('go');
    // One macrotask: every microtask has run, so the agent is inside step 1's six-minute wait.
    await new Promise((resolve) => setImmediate(resolve));
    expect(run.calls).toEqual([]);
    run.cancel();
    const result = await run.result;
    expect(result.task.state).toBe(TaskState.CANCELED);
    expect(result.calls.map((call) => call.kind)).toEqual(['platform']);
  }, 5_000);

  it('stops between steps when canceled mid-stream', async () => {
    const harness = new AgentHarness(slowAgent, { settings: { delayMs: 30, steps: 3 } });
    const run = harness.start('go', {
      onCall: (call, current) =>
        isChunk(call) && current.calls.filter(isChunk).length === 2 && current.cancel(),
    });
    const result = await run.result;
    expect(result.task.state).toBe(TaskState.CANCELED);
    expect(harness.chunks(result.taskId, PROGRESS_ARTIFACT_ID)).toHaveLength(2);
    expect(result.calls.some((call) => call.status === 'refused')).toBe(false);
  });

  it('emits `steps` progress chunks, append after the first, lastChunk on the last', async () => {
    const harness = new AgentHarness(slowAgent, { settings: { delayMs: 50, steps: 50 } });
    const result = await harness.send('go');
    const chunks = harness.chunks(result.taskId, PROGRESS_ARTIFACT_ID);
    expect(chunks).toHaveLength(50);
    expect(chunks.map((chunk) => chunk.append)).toEqual([false, ...Array<boolean>(49).fill(true)]);
    expect(chunks.map((chunk) => chunk.lastChunk)).toEqual([...Array<boolean>(49).fill(false), true]);
    expect(result.task.artifacts[0]?.parts.at(-1)).toEqual({ text: 'step 50/50' });
    // One event per step, then the reply that completes the task.
    expect(result.calls.map((call) => call.kind)).toEqual([
      ...Array<string>(50).fill('emitArtifact'),
      'reply',
    ]);
    expect(result.task.state).toBe(TaskState.COMPLETED);
  });

  it('can report steps as status updates instead', async () => {
    const result = await runAgentForTest(slowAgent, 'go', {
      settings: { delayMs: 0, steps: 3, progress: 'status' },
    });
    expect(result.calls.map((call) => call.kind)).toEqual(['setStatus', 'setStatus', 'setStatus', 'reply']);
    expect(result.task.artifacts).toEqual([]);
  });

  it('resumes after a crash without repeating stored steps or their waits', async () => {
    const harness = new AgentHarness(slowAgent, { settings: { delayMs: 40, steps: 4 } });
    const crashed = await harness.start('go', {
      onCall: (call, run) => isChunk(call) && run.calls.filter(isChunk).length === 2 && run.loseLease(),
    }).result;
    const rerun = await harness.rerun(crashed.taskId);
    expect(rerun.calls.filter(isChunk).map((call) => call.status)).toEqual([
      'skipped',
      'skipped',
      'applied',
      'applied',
    ]);
    expect(rerun.task.artifacts[0]?.parts).toHaveLength(4);
    expect(rerun.task.state).toBe(TaskState.COMPLETED);
  });

  it('falls back to the defaults, with a warning, on invalid settings', async () => {
    const harness = new AgentHarness(slowAgent, { autoUpgrade: false });
    const run = harness.start('go', { settings: { delayMs: -5, steps: 'many' } });
    run.cancel();
    const result = await run.result;
    expect(result.logs.filter((entry) => entry.level === 'warn').map((entry) => entry.obj)).toEqual([
      { key: 'delayMs', value: -5, used: 1500 },
      { key: 'steps', value: 'many', used: 0 },
    ]);
  });
});
