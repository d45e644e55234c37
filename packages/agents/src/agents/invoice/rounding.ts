import type { JsonObject } from '@switchyard/protocol';
import type { MessageInput } from '../../agent.ts';
import type { Reconciliation, RoundingAnswer } from './invoice-types.ts';
import { roundingCandidates } from './reconcile.ts';

export const ROUNDING_QUESTION = 'Do unmatched invoices under 50 EUR count as rounding differences? (yes/no)';

/** Per-context memory key: the answer is a bookkeeping policy, so later tasks in the context reuse it. */
export const ROUNDING_MEMORY_KEY = 'rounding-under-50-eur';

export function parseRoundingAnswer(text: string): RoundingAnswer | undefined {
  const word = text
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, '');
  if (word === 'yes' || word === 'y') return 'yes';
  if (word === 'no' || word === 'n') return 'no';
  return undefined;
}

/** Memory is shared JSON storage; check what comes back rather than trust a type parameter. */
export function isRoundingAnswer(value: unknown): value is RoundingAnswer {
  return value === 'yes' || value === 'no';
}

/** The closing status message: a sentence for people and a data part for programs. */
export function reconciliationSummary(
  reconciliation: Reconciliation,
  answer: RoundingAnswer | undefined,
): MessageInput {
  const { matches, unmatchedInvoices, unmatchedPayments } = reconciliation;
  const small = answer === 'yes' ? roundingCandidates(reconciliation).map((invoice) => invoice.id) : [];
  const open = unmatchedInvoices
    .filter((invoice) => !small.includes(invoice.id))
    .map((invoice) => invoice.id);
  const sentences = [
    `Matched ${matches.length} of ${matches.length + unmatchedInvoices.length} invoices.`,
    `${open.length} invoice(s) open, ${unmatchedPayments.length} payment(s) unmatched.`,
  ];
  if (small.length > 0)
    sentences.push(`${small.length} invoice(s) under 50 EUR counted as rounding differences.`);
  else if (answer === 'no' && roundingCandidates(reconciliation).length > 0) {
    sentences.push('Invoices under 50 EUR stay open (not rounding differences).');
  }
  const data: JsonObject = {
    matched: matches.length,
    openInvoices: open,
    roundingDifferences: small,
    unmatchedPayments: unmatchedPayments.map((payment) => payment.id),
    roundingAnswer: answer ?? null,
  };
  return { parts: [{ text: sentences.join(' ') }, { data, mediaType: 'application/json' }] };
}
