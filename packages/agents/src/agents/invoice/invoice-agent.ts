import type { Agent, AgentContext } from '../../agent.ts';
import { isFollowUp, textOf, userMessages } from '../shared/message-text.ts';
import { readReconcileInput } from './invoice-input.ts';
import type { Reconciliation } from './invoice-types.ts';
import { MATCHES_ARTIFACT_ID, MATCHES_PART_COUNT, matchesChunks } from './matches-artifact.ts';
import { reconcile, roundingCandidates } from './reconcile.ts';
import {
  ROUNDING_MEMORY_KEY,
  ROUNDING_QUESTION,
  isRoundingAnswer,
  parseRoundingAnswer,
  reconciliationSummary,
} from './rounding.ts';
import { invoiceCard } from './invoice-card.ts';

/**
 * Invoice reconciliation, written for at-least-once execution: every run re-derives the result
 * from the task's first client message (reconcile is pure), decides what is already done from
 * ctx.task (follow-up message in history? matches.json complete in artifacts?) and from
 * ctx.memory, and keeps no in-process state. So a re-run after a crash at any point is harmless:
 * chunks already stored are skipped by the platform, the memory write is idempotent, and the
 * task ends the same way.
 */
export const invoiceReconcilerAgent: Agent = {
  executor: 'invoice-reconciler',
  card: invoiceCard,
  async execute(ctx) {
    const request = userMessages(ctx.task.history)[0] ?? ctx.message;
    const read = readReconcileInput(request);
    if (!read.ok) {
      await ctx.reject(read.problem);
      return;
    }
    const reconciliation = reconcile(read.input);
    // The agent asks one question only, so any later client message is its answer.
    if (isFollowUp(ctx.task.history)) {
      await finishWithAnswer(ctx, reconciliation);
      return;
    }
    await emitMatches(ctx, reconciliation, read.source);
    if (roundingCandidates(reconciliation).length === 0) {
      await ctx.complete(reconciliationSummary(reconciliation, undefined));
      return;
    }
    const remembered = await ctx.memory.get(ROUNDING_MEMORY_KEY);
    if (isRoundingAnswer(remembered)) {
      ctx.log.info({ answer: remembered }, 'reusing the rounding answer stored for this context');
      await ctx.complete(reconciliationSummary(reconciliation, remembered));
      return;
    }
    await ctx.requestInput(ROUNDING_QUESTION);
  },
};

async function emitMatches(ctx: AgentContext, reconciliation: Reconciliation, source: string): Promise<void> {
  const stored = ctx.task.artifacts.find((artifact) => artifact.artifactId === MATCHES_ARTIFACT_ID);
  if (stored !== undefined && stored.parts.length >= MATCHES_PART_COUNT) return;
  await ctx.setStatus(
    `Matching ${plural(reconciliation.matches.length + reconciliation.unmatchedPayments.length, 'payment')} ` +
      `to ${plural(reconciliation.matches.length + reconciliation.unmatchedInvoices.length, 'invoice')} (${source} input).`,
  );
  // All three chunks, even after a crash mid-stream: the platform skips the ones already stored.
  for (const chunk of matchesChunks(reconciliation)) await ctx.emitArtifact(chunk);
}

async function finishWithAnswer(ctx: AgentContext, reconciliation: Reconciliation): Promise<void> {
  const answer = parseRoundingAnswer(textOf(ctx.message));
  if (answer === undefined) {
    await ctx.requestInput(`Please answer yes or no. ${ROUNDING_QUESTION}`);
    return;
  }
  await ctx.memory.set(ROUNDING_MEMORY_KEY, answer);
  await ctx.complete(reconciliationSummary(reconciliation, answer));
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
