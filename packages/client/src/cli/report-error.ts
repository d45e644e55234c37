import { isA2AError } from '@switchyard/protocol';
import { AdminApiError } from '../admin/admin-api-error.ts';
import { isA2AResponseError } from '../errors/response-error.ts';
import type { Output } from './io.ts';
import { UsageError } from './usage-error.ts';

/** Prints a failure on stderr: one line for people, or `{"error":{…}}` with --json. */
export function reportError(out: Output, error: unknown): void {
  const info = describe(error);
  if (out.json) {
    out.io.stderr.write(`${JSON.stringify({ error: info })}\n`);
    return;
  }
  // JSON-RPC errors ride on HTTP 200; the status adds nothing there.
  const where = info.httpStatus !== undefined && info.httpStatus !== 200 ? ` [HTTP ${info.httpStatus}]` : '';
  const reason = info.reason ? ` (${info.reason})` : '';
  out.err(`error: ${info.message}${reason}${where}`);
  for (const v of info.fieldViolations ?? []) out.err(`  ${v.field}: ${v.description}`);
  if (error instanceof UsageError && error.usage) out.err(`usage: ${error.usage}`);
}

interface ErrorInfo {
  type: string;
  message: string;
  reason?: string;
  httpStatus?: number;
  fieldViolations?: ReadonlyArray<{ field: string; description: string }>;
  metadata?: Record<string, string>;
}

function describe(error: unknown): ErrorInfo {
  if (isA2AError(error)) {
    return {
      type: error.name,
      message: error.message,
      reason: error.reason,
      ...(isA2AResponseError(error) ? { httpStatus: error.httpStatus } : {}),
      ...(error.fieldViolations ? { fieldViolations: error.fieldViolations } : {}),
      ...(Object.keys(error.metadata).length > 0 ? { metadata: { ...error.metadata } } : {}),
    };
  }
  if (error instanceof AdminApiError) {
    return {
      type: error.name,
      message: error.message,
      reason: error.reason,
      httpStatus: error.httpStatus,
      ...(error.fieldViolations.length > 0 ? { fieldViolations: error.fieldViolations } : {}),
    };
  }
  if (error instanceof Error) return { type: error.name, message: error.message };
  return { type: 'Error', message: String(error) };
}
