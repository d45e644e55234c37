import type { Message } from '@switchyard/protocol';
import { textOf } from '../shared/message-text.ts';
import type { Invoice, Payment, ReconcileInput } from './invoice-types.ts';
import { SAMPLE_INVOICES } from './sample-invoices.ts';

export type InputSource = 'data' | 'text' | 'sample';

export type ReadInputResult =
  | { ok: true; input: ReconcileInput; source: InputSource }
  /** `problem` is safe to show the client: it names the field, never echoes large values. */
  | { ok: false; problem: string };

/**
 * The request's invoices and payments: from its first data part, else from text holding the same
 * JSON object, else the built-in sample (so plain text like "reconcile" works).
 */
export function readReconcileInput(message: Message): ReadInputResult {
  const dataPart = message.parts.find((part) => part.data !== undefined);
  if (dataPart !== undefined) return validate(dataPart.data, 'data');
  const text = textOf(message).trim();
  if (!text.startsWith('{')) return { ok: true, input: SAMPLE_INVOICES, source: 'sample' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'The text looks like JSON but does not parse.' };
  }
  return validate(parsed, 'text');
}

function validate(value: unknown, source: InputSource): ReadInputResult {
  if (!isRecord(value) || !Array.isArray(value.invoices) || !Array.isArray(value.payments)) {
    return { ok: false, problem: 'Expected an object with "invoices" and "payments" arrays.' };
  }
  const invoices: Invoice[] = [];
  const ids = new Set<string>();
  for (const [i, item] of value.invoices.entries()) {
    if (!isRecord(item) || !isId(item.id) || !isAmount(item.amount) || !isId(item.currency)) {
      return { ok: false, problem: `invoices[${i}] needs a string id, a finite amount and a currency.` };
    }
    // A set, not a scan of those so far: 90,000 invoices fit in a request body.
    if (ids.has(item.id)) return { ok: false, problem: `invoices[${i}] repeats an id.` };
    ids.add(item.id);
    invoices.push({ id: item.id, amount: item.amount, currency: item.currency.toUpperCase() });
  }
  const payments: Payment[] = [];
  for (const [i, item] of value.payments.entries()) {
    const reference = isRecord(item) ? item.invoiceId : undefined;
    if (
      !isRecord(item) ||
      !isId(item.id) ||
      !isAmount(item.amount) ||
      (reference !== undefined && !isId(reference))
    ) {
      return {
        ok: false,
        problem: `payments[${i}] needs a string id, a finite amount and an optional string invoiceId.`,
      };
    }
    payments.push(
      reference === undefined
        ? { id: item.id, amount: item.amount }
        : { id: item.id, invoiceId: reference, amount: item.amount },
    );
  }
  return { ok: true, input: { invoices, payments }, source };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
