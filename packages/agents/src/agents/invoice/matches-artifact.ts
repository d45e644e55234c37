import type { JsonObject, Part } from '@switchyard/protocol';
import type { ArtifactChunk } from '../../agent.ts';
import type { Payment, Reconciliation } from './invoice-types.ts';
import { roundingCandidates } from './reconcile.ts';

export const MATCHES_ARTIFACT_ID = 'matches';
export const MATCHES_ARTIFACT_NAME = 'matches.json';
const JSON_MEDIA_TYPE = 'application/json';

/**
 * matches.json in exactly three chunks. Each part is a data part holding one complete JSON record
 * (not a text fragment), so a client can use every chunk as it arrives and the artifact's
 * concatenated parts read as a list of records:
 *
 *   1. `{"matches": [...first half...]}`   append false
 *   2. `{"matches": [...second half...]}`  append true
 *   3. `{"summary": {...}}`                append true, lastChunk true
 *
 * The full match list is the concatenation of the `matches` arrays (either may be empty).
 */
export function matchesChunks(reconciliation: Reconciliation): [ArtifactChunk, ArtifactChunk, ArtifactChunk] {
  const { matches } = reconciliation;
  const half = Math.ceil(matches.length / 2);
  return [
    chunk({ matches: matches.slice(0, half) }, { append: false }),
    chunk({ matches: matches.slice(half) }, { append: true }),
    chunk({ summary: summaryRecord(reconciliation) }, { append: true, lastChunk: true }),
  ];
}

/** How many parts the finished artifact has: one per chunk. */
export const MATCHES_PART_COUNT = 3;

function chunk(data: JsonObject, flags: { append: boolean; lastChunk?: boolean }): ArtifactChunk {
  const part: Part = { data, mediaType: JSON_MEDIA_TYPE };
  return {
    artifactId: MATCHES_ARTIFACT_ID,
    name: MATCHES_ARTIFACT_NAME,
    description: 'Payments matched to invoices: two "matches" records, then one "summary" record.',
    parts: [part],
    append: flags.append,
    lastChunk: flags.lastChunk ?? false,
  };
}

function summaryRecord(reconciliation: Reconciliation): JsonObject {
  const { matches, unmatchedInvoices, unmatchedPayments } = reconciliation;
  return {
    matched: matches.length,
    withDifference: matches.filter((match) => match.difference !== 0).map((match) => match.invoiceId),
    unmatchedInvoices,
    unmatchedPayments: unmatchedPayments.map(paymentRecord),
    roundingCandidates: roundingCandidates(reconciliation).map((invoice) => invoice.id),
  };
}

function paymentRecord(payment: Payment): JsonObject {
  const record: JsonObject = { id: payment.id, amount: payment.amount };
  if (payment.invoiceId !== undefined) record.invoiceId = payment.invoiceId;
  return record;
}
