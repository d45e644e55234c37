import { invalidParams } from '@switchyard/protocol';

const DESCRIPTION = 'must not contain U+0000 (NUL) or unpaired surrogates (\\uD800-\\uDFFF)';

/**
 * Postgres text and jsonb hold neither U+0000 nor a lone UTF-16 surrogate, so such a string
 * anywhere in a request would otherwise fail deep in the store as an internal error (found by the
 * security suite's fuzzing). It is refused up front as bad input (digest §9 rule 7), naming the
 * field. The walk is iterative and builds a path only on failure: request JSON may be nested far
 * deeper than the stack allows.
 */
export function rejectUnstorableText(value: unknown): void {
  const stack: Node[] = [{ value, key: '', parent: undefined }];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const v = node.value;
    if (typeof v === 'string') {
      if (!storable(v)) throw refusal(node);
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    for (const [key, child] of Object.entries(v)) {
      const entry = { value: child, key: Array.isArray(v) ? `[${key}]` : key, parent: node };
      if (!storable(key)) throw refusal(entry);
      stack.push(entry);
    }
  }
}

/** Only an escape (`\u0000`, `\uD800`) can put such a character into JSON text decoded as UTF-8. */
export function mayHoldUnstorableText(jsonText: string): boolean {
  return /\\u(0000|[dD][89a-fA-F])/.test(jsonText);
}

interface Node {
  value: unknown;
  key: string;
  parent: Node | undefined;
}

function storable(s: string): boolean {
  return !s.includes('\0') && s.isWellFormed();
}

function refusal(node: Node) {
  const keys: string[] = [];
  for (let n: Node | undefined = node; n; n = n.parent) keys.push(n.key);
  const path = keys
    .reverse()
    .filter((k) => k !== '')
    .join('.')
    .replaceAll('.[', '[');
  const escaped = JSON.stringify(path).slice(1, -1) || 'request';
  // A path through deeply nested JSON is as long as the nesting: keep the reply small.
  const field = escaped.length > 200 ? `${escaped.slice(0, 200)}…` : escaped;
  return invalidParams(`${field} ${DESCRIPTION}`, [{ field, description: DESCRIPTION }]);
}
