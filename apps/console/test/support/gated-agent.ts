import type { Agent } from '@switchyard/agents';

/**
 * A slow agent with progress steps whose pace the test sets, so "the page updates while the task
 * runs" is checked step by step instead of racing a timer (HACKING.md: no timed assertions). Each
 * step is a status update plus a chunk of the `progress` artifact, like the bundled slow agent.
 */
export interface GatedAgent {
  agent: Agent;
  /** Lets task `taskId` run `steps` more progress steps. */
  open(taskId: string, steps?: number): void;
  /** Lets task `taskId` complete after the steps it was allowed. */
  finish(taskId: string): void;
}

export const GATED_EXECUTOR = 'gated';

export function createGatedAgent(): GatedAgent {
  const gates = new Map<string, { allowed: number; finished: boolean }>();
  const waiters = new Set<() => void>();
  const gate = (taskId: string) => {
    let g = gates.get(taskId);
    if (!g) gates.set(taskId, (g = { allowed: 0, finished: false }));
    return g;
  };
  const wake = () => {
    for (const w of [...waiters]) w();
    waiters.clear();
  };
  const until = async (ready: () => boolean, signal: AbortSignal): Promise<boolean> => {
    while (!ready()) {
      if (signal.aborted) return false;
      await new Promise<void>((resolve) => {
        waiters.add(resolve);
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    return !signal.aborted;
  };
  return {
    agent: {
      executor: GATED_EXECUTOR,
      card: {
        name: 'Gated',
        description: 'Test agent: progress steps at the pace the test sets.',
        version: '1.0.0',
        skills: [{ id: 'steps', name: 'Steps', description: 'Reports progress steps.', tags: ['test'] }],
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
      },
      async execute(ctx) {
        const g = gate(ctx.task.id);
        let step = 0;
        for (;;) {
          if (!(await until(() => g.allowed > step || g.finished, ctx.signal))) return;
          if (g.allowed > step) {
            step += 1;
            await ctx.setStatus(`Step ${step}`);
            await ctx.emitArtifact({
              artifactId: 'progress',
              name: 'progress',
              parts: [{ text: `step ${step}` }],
              append: step > 1,
            });
            continue;
          }
          await ctx.complete(`done after ${step} steps`);
          return;
        }
      },
    },
    open(taskId, steps = 1) {
      gate(taskId).allowed += steps;
      wake();
    },
    finish(taskId) {
      gate(taskId).finished = true;
      wake();
    },
  };
}
