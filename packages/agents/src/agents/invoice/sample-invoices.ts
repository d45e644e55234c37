import type { ReconcileInput } from './invoice-types.ts';

/**
 * Used when a request carries no invoice data, so the agent can be tried from any client with
 * plain text. Fixed on purpose: it covers every path (a reference match, an amount match, a
 * reference match with a 5-cent difference, two unmatched EUR invoices under 50 that trigger the
 * rounding question, an unmatched USD invoice, an unmatched payment).
 */
export const SAMPLE_INVOICES: ReconcileInput = Object.freeze({
  invoices: [
    { id: 'INV-1001', amount: 120.0, currency: 'EUR' },
    { id: 'INV-1002', amount: 89.9, currency: 'EUR' },
    { id: 'INV-1003', amount: 42.5, currency: 'EUR' },
    { id: 'INV-1004', amount: 310.0, currency: 'EUR' },
    { id: 'INV-1005', amount: 19.99, currency: 'EUR' },
    { id: 'INV-1006', amount: 75.0, currency: 'USD' },
  ],
  payments: [
    { id: 'PAY-1', invoiceId: 'INV-1001', amount: 120.0 },
    { id: 'PAY-2', amount: 89.9 },
    { id: 'PAY-3', invoiceId: 'INV-1004', amount: 309.95 },
    { id: 'PAY-4', amount: 500.0 },
  ],
});
