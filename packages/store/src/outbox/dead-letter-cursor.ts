/**
 * Keyset cursor for dead letters: (created_at, task_id, config_id, seq) of the last row. created_at
 * travels as Postgres's own microsecond text, because a JS Date would round it to milliseconds and
 * skip or repeat rows created within the same millisecond.
 */
export interface DeadLetterPosition {
  createdAt: string;
  taskId: string;
  configId: string;
  seq: number;
}

export function encodeDeadLetterCursor(p: DeadLetterPosition): string {
  return Buffer.from(JSON.stringify([p.createdAt, p.taskId, p.configId, p.seq]), 'utf8').toString(
    'base64url',
  );
}

/** Throws RangeError for a cursor this module did not make. */
export function decodeDeadLetterCursor(cursor: string): DeadLetterPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch (cause) {
    throw new RangeError('invalid dead-letter cursor', { cause });
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    typeof parsed[0] !== 'string' ||
    !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(parsed[0]) ||
    typeof parsed[1] !== 'string' ||
    !/^[0-9a-f-]{36}$/i.test(parsed[1]) ||
    typeof parsed[2] !== 'string' ||
    !Number.isInteger(parsed[3])
  ) {
    throw new RangeError('invalid dead-letter cursor');
  }
  return { createdAt: parsed[0], taskId: parsed[1], configId: parsed[2], seq: parsed[3] as number };
}
