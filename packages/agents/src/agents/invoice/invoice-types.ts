/**
 * Amounts are decimal numbers as clients send them; matching compares whole cents. Type aliases
 * (not interfaces) so records stay assignable to JsonValue when they go into data parts.
 */
export type Invoice = {
  id: string;
  amount: number;
  currency: string;
};

export type Payment = {
  id: string;
  /** The invoice the payer referenced, when they did. */
  invoiceId?: string;
  amount: number;
};

export type ReconcileInput = {
  invoices: Invoice[];
  payments: Payment[];
};

export type Match = {
  invoiceId: string;
  paymentId: string;
  currency: string;
  invoiceAmount: number;
  paidAmount: number;
  /** paidAmount − invoiceAmount, rounded to cents (0 for an exact match). */
  difference: number;
  /** 'reference': the payment named the invoice; 'amount': matched by an equal amount. */
  matchedBy: 'reference' | 'amount';
};

export type Reconciliation = {
  matches: Match[];
  unmatchedInvoices: Invoice[];
  unmatchedPayments: Payment[];
};

/** The user's answer to the rounding question, stored per context. */
export type RoundingAnswer = 'yes' | 'no';
