import type { Agent } from '@switchyard/agents';

/** Text of each chunk the sizer agent writes: 412 bytes of parts JSON. */
const CHUNK_TEXT = 'x'.repeat(400);

/** What the sizer agent's refused calls threw, in order. */
export const refusals: unknown[] = [];

/**
 * "emit N": N chunks of 400 characters (412 bytes of parts JSON), each its own artifact, then ask
 * for input (unless refused); "replace N": N chunks that each replace one artifact.
 */
export const sizer: Agent = {
  executor: 'sizer',
  card: { name: 'sizer' } as Agent['card'],
  async execute(ctx) {
    const text = ctx.message.parts.map((part) => ('text' in part ? part.text : '')).join('');
    const [, mode = 'emit', n = '0'] = /(emit|replace) (\d+)/.exec(text) ?? [];
    try {
      for (let k = 0; k < Number(n); k++)
        await ctx.emitArtifact({
          artifactId: mode === 'replace' ? 'same' : `a-${ctx.message.messageId}-${k}`,
          parts: [{ text: CHUNK_TEXT }],
        });
    } catch (err) {
      refusals.push(err);
      return;
    }
    await ctx.requestInput({ parts: [{ text: 'more?' }] });
  },
};
