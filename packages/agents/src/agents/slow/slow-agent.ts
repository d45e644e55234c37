import type { Agent, AgentContext } from '../../agent.ts';
import { abortableDelay } from '../shared/abortable-delay.ts';
import { slowCard } from './slow-card.ts';
import { readSlowSettings, type ProgressMode } from './slow-settings.ts';

export const PROGRESS_ARTIFACT_ID = 'progress';

/**
 * Shows the Message→Task upgrade (ARCHITECTURE.md §5): it replies after `delayMs`; within the
 * 300 ms window that reply is a Message, later the platform has already made the request a Task
 * and the same reply completes it. The window is part of the agent, not a setting: a client
 * reading the card must be able to rely on it.
 *
 * Every wait observes ctx.signal, so a cancel or a lost lease stops the agent between steps at
 * once; it then returns quietly (the platform already decided the task's fate).
 */
export const slowAgent: Agent = {
  executor: 'slow',
  card: slowCard,
  quickReplyWindowMs: 300,
  async execute(ctx) {
    const { delayMs, steps, progress } = readSlowSettings(ctx);
    // After a crash, steps whose chunks are stored are re-emitted without waiting: the platform
    // skips them, and the k-th-chunk skip rule needs them re-sent in order before new ones.
    const stored = progress === 'status' ? 0 : storedSteps(ctx);
    for (let step = 1; step <= steps; step += 1) {
      const waitMs = step <= stored ? 0 : stepDelayMs(delayMs, steps, step);
      if (!(await abortableDelay(waitMs, ctx.signal))) return;
      await emitProgress(ctx, step, steps, progress, step <= stored);
    }
    if (steps === 0 && !(await abortableDelay(delayMs, ctx.signal))) return;
    // The configured delay, not a measured one: the answer is the same on every run and in tests.
    await ctx.reply(`done after ${delayMs} ms`);
  },
};

/** Splits the delay so the steps' waits add up to exactly `delayMs`. */
function stepDelayMs(delayMs: number, steps: number, step: number): number {
  return Math.floor((delayMs * step) / steps) - Math.floor((delayMs * (step - 1)) / steps);
}

function storedSteps(ctx: AgentContext): number {
  return (
    ctx.task.artifacts.find((artifact) => artifact.artifactId === PROGRESS_ARTIFACT_ID)?.parts.length ?? 0
  );
}

async function emitProgress(
  ctx: AgentContext,
  step: number,
  steps: number,
  mode: ProgressMode,
  replay: boolean,
): Promise<void> {
  if (mode !== 'artifact' && !replay) await ctx.setStatus(`Step ${step} of ${steps}`);
  if (mode === 'status') return;
  await ctx.emitArtifact({
    artifactId: PROGRESS_ARTIFACT_ID,
    name: 'progress',
    parts: [{ text: `step ${step}/${steps}` }],
    append: step > 1,
    lastChunk: step === steps,
  });
}
