import { InvalidPageTokenError } from '../errors.ts';

/**
 * Page tokens are opaque to clients (digest §7.4 rule 22): base64url of a small JSON cursor. They
 * carry only keyset positions, never filters or tenant, so a token is useless outside the query
 * that scopes it. A version tag lets the cursor change shape later without misreading old tokens.
 */
export function encodePageToken(cursor: Record<string, string>): string {
  return Buffer.from(JSON.stringify({ v: 1, ...cursor }), 'utf8').toString('base64url');
}

/** Decodes a token into the named string fields, or throws InvalidPageTokenError. */
export function decodePageToken<K extends string>(
  token: string,
  fields: Record<K, RegExp>,
): Record<K, string> {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (cause) {
    throw new InvalidPageTokenError({ cause });
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { v?: unknown }).v !== 1)
    throw new InvalidPageTokenError();
  const out = {} as Record<K, string>;
  for (const key of Object.keys(fields) as K[]) {
    const value = (parsed as Record<string, unknown>)[key];
    if (typeof value !== 'string' || !fields[key].test(value)) throw new InvalidPageTokenError();
    out[key] = value;
  }
  return out;
}
