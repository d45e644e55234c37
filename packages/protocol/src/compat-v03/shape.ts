// Helpers for translating untrusted JSON: what is recognized is reshaped, anything else is passed
// through unchanged, so the 1.0 validator that runs next names the bad field.

/** The same object without its `undefined` members (ProtoJSON and 0.3 both omit unset fields). */
export function compact<T extends object>(value: T): T {
  // fromEntries defines properties, so a client's `__proto__` key stays a plain key.
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** `value` as a plain object, or undefined. */
export function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Maps an array; anything else is returned as it came. */
export function mapArray<T, U>(value: T[] | undefined, fn: (item: T) => U): U[] | undefined {
  return Array.isArray(value) ? value.map(fn) : (value as undefined);
}

/** Omits an empty string, as 0.3 and ProtoJSON do for unset strings. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
