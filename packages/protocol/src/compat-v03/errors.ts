import { A2AError } from '../errors/a2a-error.ts';
import type { FieldViolation } from '../errors/error-details.ts';
import { fromUnknown } from '../errors/from-unknown.ts';
import { errorKindByJsonRpcCode, errorKindByReason, JSON_RPC_SERVER_ERROR_CODE } from '../errors/registry.ts';
import type { JsonObject } from '../types/common.ts';
import { isTaskState } from '../task-state.ts';
import { fromV03TaskState, toV03TaskState } from './enums.ts';
import { compact, recordOf } from './shape.ts';
import type { JsonRpcErrorObjectV03, TaskStateV03 } from './types.ts';

/**
 * The JSON-RPC `error` of a 0.3 reply (digest §13.3). Codes are the same registry (0.3 had
 * -32001…-32007; -32007 was AuthenticatedExtendedCardNotConfigured, the same error renamed); 0.3
 * `data` is free-form, not 1.0's array of `Any`, so it is one object: the ErrorInfo `reason`
 * (which tells -32000 errors apart), its `metadata` and any field violations.
 */
export function toV03JsonRpcError(error: unknown): JsonRpcErrorObjectV03 {
  const a2a = fromUnknown(error);
  const metadata = Object.keys(a2a.metadata).length > 0 ? toV03Metadata(a2a.metadata) : undefined;
  const data = compact({
    reason: a2a.reason,
    metadata,
    fieldViolations: a2a.fieldViolations?.map((v) => ({ field: v.field, description: v.description })),
  }) as JsonObject;
  return { code: a2a.definition.jsonRpcCode ?? JSON_RPC_SERVER_ERROR_CODE, message: a2a.message, data };
}

/** A 0.3 `error` → A2AError: by `data.reason` when it is ours, else by code; unknown is Internal. */
export function fromV03JsonRpcError(error: JsonRpcErrorObjectV03): A2AError {
  const e = recordOf(error);
  const data = recordOf(e?.['data']);
  const code = e?.['code'];
  const reason = data?.['reason'];
  const kind =
    (typeof reason === 'string' ? errorKindByReason(reason) : undefined) ??
    (typeof code === 'number' ? errorKindByJsonRpcCode(code) : undefined) ??
    'Internal';
  const message = e?.['message'];
  return new A2AError(kind, {
    ...(typeof message === 'string' && message !== '' ? { message } : {}),
    metadata: fromV03Metadata(stringValues(data?.['metadata'])),
    fieldViolations: violations(data?.['fieldViolations']),
  });
}

/**
 * ErrorInfo metadata keys whose value is a task state (TaskNotCancelable's `state`): a 0.3 client
 * reads it in 0.3's spelling, `completed` and not `TASK_STATE_COMPLETED` (digest §13.3).
 */
const STATE_KEYS = new Set(['state']);

function toV03Metadata(metadata: Readonly<Record<string, string>>): Record<string, string> {
  const out = { ...metadata };
  for (const key of STATE_KEYS) {
    const value = out[key];
    if (isTaskState(value)) out[key] = toV03TaskState(value);
  }
  return out;
}

/** The other way, for a client reading a 0.3 error: a state it recognizes in its 1.0 spelling. */
function fromV03Metadata(metadata: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!metadata) return metadata;
  for (const key of STATE_KEYS) {
    const value = metadata[key];
    if (value === undefined) continue;
    const state = fromV03TaskState(value as TaskStateV03);
    if (isTaskState(state)) metadata[key] = state;
  }
  return metadata;
}

function stringValues(value: unknown): Record<string, string> | undefined {
  const rec = recordOf(value);
  if (!rec) return undefined;
  return Object.fromEntries(
    Object.entries(rec).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

function violations(value: unknown): FieldViolation[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.flatMap((v: unknown) => {
    const r = recordOf(v);
    return typeof r?.['field'] === 'string' && typeof r['description'] === 'string'
      ? [{ field: r['field'], description: r['description'] }]
      : [];
  });
}
