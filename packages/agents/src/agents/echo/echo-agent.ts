import type { Agent } from '../../agent.ts';
import { textOf, textParts } from '../shared/message-text.ts';
import { echoCard } from './echo-card.ts';

/** The text that asks for the Message path: the smallest way to exercise both answer kinds. */
export const ECHO_REPLY_TRIGGER = 'reply';

/**
 * Echo: a Task with one `echo` artifact (a single chunk: append false, lastChunk true), or a
 * Message when the text is exactly "reply". Stateless, so a re-run after a crash is harmless: the
 * platform skips the chunk it already stored and the task completes again from the same input.
 */
export const echoAgent: Agent = {
  executor: 'echo',
  card: echoCard,
  async execute(ctx) {
    const parts = textParts(ctx.message.parts);
    if (textOf(ctx.message) === ECHO_REPLY_TRIGGER) {
      await ctx.reply({ parts });
      return;
    }
    if (parts.length === 0) {
      await ctx.reject('Echo only echoes text: send at least one text part.');
      return;
    }
    await ctx.emitArtifact({ artifactId: 'echo', name: 'echo', parts, append: false, lastChunk: true });
    await ctx.complete();
  },
};
