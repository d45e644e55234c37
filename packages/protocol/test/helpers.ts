import { expect } from 'vitest';
import { A2AError, type FieldViolation } from '../src/index.ts';

/** Runs `fn`, expects InvalidParams, and returns its field violations. */
export function violationsOf(fn: () => unknown): FieldViolation[] {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, 'expected an A2AError to be thrown').toBeInstanceOf(A2AError);
  const error = thrown as A2AError;
  expect(error.kind).toBe('InvalidParams');
  return [...(error.fieldViolations ?? [])];
}

/** Expects InvalidParams naming exactly `field` (among possibly others), returns its description. */
export function expectViolation(fn: () => unknown, field: string, description?: string | RegExp): string {
  const violations = violationsOf(fn);
  const match = violations.find((v) => v.field === field);
  expect(match, `no violation for ${field}; got ${JSON.stringify(violations)}`).toBeDefined();
  if (description !== undefined) expect(match?.description).toMatch(description);
  return match?.description ?? '';
}

/** The smallest valid client message. */
export function userMessage(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }], ...overrides };
}
