import type { z } from 'zod';

/**
 * Turns zod issues into short, client-safe descriptions for BadRequest field violations. The
 * field path is reported separately, so descriptions never repeat it and never echo input values.
 */
export const errorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      if (issue.expected === 'int') return 'must be an integer';
      return `must be ${article(issue.expected)}`;
    case 'too_small':
      if (issue.origin === 'array') return `must contain at least ${String(issue.minimum)} item(s)`;
      if (issue.origin === 'string')
        return issue.minimum === 1
          ? 'must not be empty'
          : `must be at least ${String(issue.minimum)} characters`;
      return `must be >= ${String(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'array') return `must contain at most ${String(issue.maximum)} item(s)`;
      if (issue.origin === 'string') return `must be at most ${String(issue.maximum)} characters`;
      return `must be <= ${String(issue.maximum)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    default:
      return 'is invalid';
  }
};

function article(expected: string): string {
  if (expected === 'array') return 'an array';
  if (expected === 'object') return 'an object';
  return `a ${expected}`;
}
