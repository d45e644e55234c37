import type { z } from 'zod';
import type { A2AError } from '../errors/a2a-error.ts';
import type { FieldViolation } from '../errors/error-details.ts';
import { invalidParams } from '../errors/factories.ts';

// Bound the size of an error reply even for a request with thousands of bad parts.
const MAX_VIOLATIONS = 20;
const MAX_IN_MESSAGE = 3;

/** `['message','parts',0,'text']` → `message.parts[0].text` (camelCase dotted, as in BadRequest). */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

export function issuesToViolations(issues: readonly z.core.$ZodIssue[]): FieldViolation[] {
  return issues.map((issue) => ({ field: formatFieldPath(issue.path), description: issue.message }));
}

/**
 * InvalidParams with google.rpc.BadRequest violations. The message lists the first few as
 * `field: description` so a human reading only `error.message` still sees what to fix.
 */
export function invalidParamsFromViolations(violations: readonly FieldViolation[]): A2AError {
  const unique = dedupe(violations).slice(0, MAX_VIOLATIONS);
  const shown = unique
    .slice(0, MAX_IN_MESSAGE)
    .map((v) => (v.field ? `${v.field}: ${v.description}` : v.description));
  const more = unique.length - shown.length;
  const message = shown.join('; ') + (more > 0 ? `; and ${more} more` : '');
  return invalidParams(message || undefined, unique);
}

function dedupe(violations: readonly FieldViolation[]): FieldViolation[] {
  const seen = new Set<string>();
  return violations.filter((v) => {
    const key = `${v.field}\u0000${v.description}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
