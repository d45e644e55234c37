import type { Message, Part } from '@switchyard/protocol';
import type { AgentContext } from '../../agent.ts';
import { abortableDelay } from '../shared/abortable-delay.ts';

/**
 * The behaviour contract of the newer conformance suites (A2A ITK's ACTS, section 11.2): the
 * first text part of the task's first user message names a behaviour (`tck-complete-task hello`),
 * and continuations carry no name, so the behaviour belongs to the task and is read back from its
 * history. Unlike the older TCK's messageId prefixes (conformance-agent.ts), a name that is not
 * known fails the task loudly rather than falling through.
 */
type Behaviour = (ctx: AgentContext, turn: 'first' | 'continuation') => Promise<void>;

/** How long `tck-cancel` waits for its cancel before it gives up and completes. */
const CANCEL_WAIT_MS = 5 * 60_000;

const textOf = (message: Pick<Message, 'parts'>): string | undefined => {
  const first = message.parts[0];
  return first && 'text' in first && typeof first.text === 'string' ? first.text.trim() : undefined;
};

/** A behaviour name at the start of a message's first text part, up to the first space. */
function nameIn(message: Pick<Message, 'parts'>): string | undefined {
  return /^(tck-[a-z0-9]+(?:-[a-z0-9]+)*)(?:\s|$)/.exec(textOf(message) ?? '')?.[1];
}

const artifactThenComplete =
  (...chunks: Part[]): Behaviour =>
  async (ctx) => {
    for (const [i, part] of chunks.entries()) {
      await ctx.emitArtifact({
        artifactId: 'output',
        parts: [part],
        append: i > 0,
        lastChunk: i === chunks.length - 1,
      });
    }
    await ctx.complete();
  };

const BEHAVIOURS: ReadonlyMap<string, Behaviour> = new Map<string, Behaviour>([
  ['tck-complete-task', (ctx) => ctx.complete('Hello from TCK')],
  [
    'tck-long-running',
    async (ctx) => {
      // Seen WORKING at least once by a client that polls every 2 s.
      if (await abortableDelay(1500, ctx.signal)) await ctx.complete('Done after a while');
    },
  ],
  [
    'tck-multi-turn',
    async (ctx, turn) => {
      if (turn === 'continuation' && /^done\b/i.test(textOf(ctx.message) ?? ''))
        return ctx.complete('Conversation complete');
      await ctx.requestInput('Send more input, or a message starting with "done" to finish.');
    },
  ],
  ['tck-stream-basic', artifactThenComplete({ text: 'streamed content' })],
  [
    'tck-stream-chunked',
    artifactThenComplete({ text: 'chunk-1 ' }, { text: 'chunk-2 ' }, { text: 'chunk-3' }),
  ],
  ['tck-message-response', (ctx) => ctx.reply('Direct message response')],
  [
    'tck-cancel',
    async (ctx) => {
      if (await abortableDelay(CANCEL_WAIT_MS, ctx.signal)) await ctx.complete('Never canceled');
    },
  ],
  ['tck-task-failure', (ctx) => ctx.fail('The task failed, as tck-task-failure asks.')],
  [
    'tck-auth-required',
    async (ctx, turn) => {
      if (turn === 'continuation') return ctx.complete('Authorized: the task went on.');
      await ctx.requestAuth('Authorization required: authorize out of band, then send a message.');
    },
  ],
  ['tck-artifact-text', artifactThenComplete({ text: 'Generated text content' })],
  ['tck-artifact-data', artifactThenComplete({ data: { key: 'value', count: 42 } })],
  [
    'tck-artifact-file',
    artifactThenComplete({
      raw: Buffer.from('tck').toString('base64'),
      mediaType: 'text/plain',
      filename: 'output.txt',
    }),
  ],
  [
    'tck-artifact-file-url',
    artifactThenComplete({
      url: 'https://example.com/output.txt',
      mediaType: 'text/plain',
      filename: 'output.txt',
    }),
  ],
  [
    'tck-input-required',
    async (ctx, turn) => {
      if (turn === 'continuation') return ctx.complete('Input received.');
      await ctx.requestInput('Input required: send a follow-up message to this task.');
    },
  ],
  ['tck-reject-task', (ctx) => ctx.reject('rejected')],
]);

/**
 * Runs the behaviour the run's message names, or, for a continuation without a name, the one the
 * task's first named message did. False when no message names one (not a conformance request).
 */
export async function runTextBehaviour(ctx: AgentContext): Promise<boolean> {
  const own = nameIn(ctx.message);
  const name =
    own ??
    ctx.task.history
      .filter((m) => m.role === 'ROLE_USER')
      .map(nameIn)
      .find(Boolean);
  if (!name) return false;
  const behaviour = BEHAVIOURS.get(name);
  if (!behaviour) {
    await ctx.fail(`Unknown conformance behaviour: ${name}`);
    return true;
  }
  await behaviour(ctx, own ? 'first' : 'continuation');
  return true;
}
