import type { Invoice, Match, Payment, ReconcileInput, Reconciliation } from './invoice-types.ts';

/** Whole cents: comparing decimal amounts as floats would miss 0.1 + 0.2 style matches. */
const cents = (amount: number): number => Math.round(amount * 100);

/**
 * Matches payments to invoices. Pure and order-stable, so every run of a task (including a re-run
 * after a crash or the run after the user's answer) derives the same result from the same input.
 *
 * 1. A payment that references an open invoice matches it, whatever the amount (the difference is
 *    reported). 2. Every other payment matches the first open invoice with exactly its amount.
 */
export function reconcile(input: ReconcileInput): Reconciliation {
  const open = new Map<string, Invoice>(input.invoices.map((invoice) => [invoice.id, invoice]));
  const matched = new Map<string, Match>();
  const leftover: Payment[] = [];

  for (const payment of input.payments) {
    const invoice = payment.invoiceId === undefined ? undefined : open.get(payment.invoiceId);
    if (invoice === undefined) leftover.push(payment);
    else matched.set(invoice.id, settle(invoice, payment, 'reference', open));
  }
  // Open invoices by amount, in invoice order: the first still open with a payment's amount is
  // found without a scan of every open invoice per payment (quadratic in a 4 MiB ledger).
  const byAmount = new Map<number, { invoices: Invoice[]; next: number }>();
  for (const invoice of open.values()) {
    const bucket = byAmount.get(cents(invoice.amount));
    if (bucket) bucket.invoices.push(invoice);
    else byAmount.set(cents(invoice.amount), { invoices: [invoice], next: 0 });
  }
  const unmatchedPayments: Payment[] = [];
  for (const payment of leftover) {
    const bucket = byAmount.get(cents(payment.amount));
    const invoice = bucket?.invoices[bucket.next];
    if (bucket && invoice) bucket.next += 1;
    if (invoice === undefined) unmatchedPayments.push(payment);
    else matched.set(invoice.id, settle(invoice, payment, 'amount', open));
  }

  return {
    // Invoice order, not payment order: the artifact reads like the ledger it reconciles.
    matches: input.invoices.flatMap((invoice) => matched.get(invoice.id) ?? []),
    unmatchedInvoices: [...open.values()],
    unmatchedPayments,
  };
}

function settle(
  invoice: Invoice,
  payment: Payment,
  matchedBy: Match['matchedBy'],
  open: Map<string, Invoice>,
): Match {
  open.delete(invoice.id);
  return {
    invoiceId: invoice.id,
    paymentId: payment.id,
    currency: invoice.currency,
    invoiceAmount: invoice.amount,
    paidAmount: payment.amount,
    difference: (cents(payment.amount) - cents(invoice.amount)) / 100,
    matchedBy,
  };
}

/** The question only concerns small EUR invoices nobody paid; the threshold is the business rule. */
export const ROUNDING_LIMIT_EUR = 50;

export function roundingCandidates(reconciliation: Reconciliation): Invoice[] {
  return reconciliation.unmatchedInvoices.filter(
    (invoice) => invoice.currency === 'EUR' && cents(invoice.amount) < cents(ROUNDING_LIMIT_EUR),
  );
}
