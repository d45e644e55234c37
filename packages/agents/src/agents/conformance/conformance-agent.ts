import type { Part } from '@switchyard/protocol';
import type { Agent, AgentContext } from '../../agent.ts';
import { abortableDelay } from '../shared/abortable-delay.ts';
import { conformanceCard } from './conformance-card.ts';
import { runTextBehaviour } from './text-behaviours.ts';

type Scenario = (ctx: AgentContext) => Promise<void>;

const FILE_PART: Part = {
  raw: Buffer.from('tck').toString('base64'),
  mediaType: 'text/plain',
  filename: 'output.txt',
};

/** One artifact of one part, then COMPLETED. */
const artifactThenComplete =
  (part: Part): Scenario =>
  async (ctx) => {
    await ctx.emitArtifact({ artifactId: 'output', parts: [part], append: false, lastChunk: true });
    await ctx.complete();
  };

/**
 * The TCK's system-under-test scenarios (its Gherkin features, as its SUT agents implement them),
 * first matching prefix wins, so the longer prefixes come before the shorter ones they start with.
 */
const SCENARIOS: ReadonlyArray<readonly [prefix: string, run: Scenario]> = [
  [
    'tck-stream-artifact-chunked',
    async (ctx) => {
      // The TCK's own SUT marks the first chunk `append` too; a first chunk has nothing to append to.
      await ctx.emitArtifact({ artifactId: 'chunked', parts: [{ text: 'chunk-1 ' }], append: false });
      await ctx.emitArtifact({
        artifactId: 'chunked',
        parts: [{ text: 'chunk-2' }],
        append: true,
        lastChunk: true,
      });
      await ctx.complete();
    },
  ],
  [
    'test-resubscribe-message-id',
    async (ctx) => {
      // Long enough for a client to drop its stream and subscribe again before the task ends.
      if (await abortableDelay(4000, ctx.signal)) await ctx.complete();
    },
  ],
  [
    'tck-delayed-complete',
    async (ctx) => {
      // WORKING for a while, so a blocking and a non-blocking send answer differently.
      if (await abortableDelay(2000, ctx.signal)) await ctx.complete('Done after delay');
    },
  ],
  ['tck-stream-artifact-text', artifactThenComplete({ text: 'Streamed text content' })],
  ['tck-stream-artifact-file', artifactThenComplete(FILE_PART)],
  ['tck-stream-ordering-001', artifactThenComplete({ text: 'Ordered output' })],
  [
    'tck-artifact-file-url',
    artifactThenComplete({
      url: 'https://example.com/output.txt',
      mediaType: 'text/plain',
      filename: 'output.txt',
    }),
  ],
  ['tck-message-response', (ctx) => ctx.reply('Direct message response')],
  ['tck-input-required', (ctx) => ctx.requestInput('Input required: send a follow-up message to this task.')],
  ['tck-complete-task', (ctx) => ctx.complete('Hello from TCK')],
  ['tck-artifact-text', artifactThenComplete({ text: 'Generated text content' })],
  ['tck-artifact-file', artifactThenComplete(FILE_PART)],
  ['tck-artifact-data', artifactThenComplete({ data: { key: 'value', count: 42 } })],
  ['tck-reject-task', (ctx) => ctx.reject('rejected')],
  [
    'tck-auth-required',
    (ctx) => ctx.requestAuth('Authorization required: authorize out of band, then send a message.'),
  ],
  ['tck-stream-001', artifactThenComplete({ text: 'Stream hello from TCK' })],
  ['tck-stream-002', (ctx) => ctx.complete()],
  ['tck-stream-003', artifactThenComplete({ text: 'Stream task lifecycle' })],
];

/**
 * Conformance: lets the official A2A TCK run against the platform (README: "Running the A2A TCK").
 * The older TCK names its scenario in the messageId; the newer suites name a behaviour in the
 * first text part (text-behaviours.ts). Stateless, so a re-run after a crash gives the same answer.
 */
export const conformanceAgent: Agent = {
  executor: 'conformance',
  card: conformanceCard,
  async execute(ctx) {
    const { messageId } = ctx.message;
    const scenario = SCENARIOS.find(([prefix]) => messageId.startsWith(prefix))?.[1];
    if (scenario) await scenario(ctx);
    else if (!(await runTextBehaviour(ctx))) await ctx.complete(`Unhandled messageId prefix: ${messageId}`);
  },
};
