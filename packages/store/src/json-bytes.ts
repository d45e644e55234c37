/** Bytes of a value's JSON text (UTF-8): how the task size limits weigh history and artifacts. */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '');
