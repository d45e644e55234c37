/** The protocol versions this package speaks. */
export const SUPPORTED_VERSIONS: readonly string[] = Object.freeze(['1.0']);

/** What an empty or missing `A2A-Version` means (digest §6, spec §3.6.2, TCK VER-SERVER-003). */
export const DEFAULT_VERSION_WHEN_MISSING = '0.3';

export type VersionNegotiation<V extends string = string> =
  { ok: true; version: V } | { ok: false; requested: string };

const VERSION = /^(\d{1,4})\.(\d{1,4})(?:\.\d{1,4})?$/;

/**
 * Reads an `A2A-Version` header or query value. Empty or missing means `0.3`; the patch number
 * is ignored (`1.0.1` → `1.0`, digest §6). `requested` is the normalized Major.Minor when the value
 * parses, else the raw (trimmed) value, for VersionNotSupportedError metadata.
 */
export function negotiateVersion<V extends string = string>(
  value: string | undefined,
  supported: readonly V[] = SUPPORTED_VERSIONS as readonly V[],
): VersionNegotiation<V> {
  const trimmed = (value ?? '').trim();
  const requested = trimmed === '' ? DEFAULT_VERSION_WHEN_MISSING : normalize(trimmed);
  const match = supported.find((v) => v === requested);
  return match === undefined ? { ok: false, requested } : { ok: true, version: match };
}

function normalize(value: string): string {
  const m = VERSION.exec(value);
  return m ? `${Number(m[1])}.${Number(m[2])}` : value;
}

/**
 * Parses `A2A-Extensions` (digest §6): comma-separated URIs, trimmed, empty entries dropped,
 * duplicates removed in first-seen order. Node joins repeated headers with `, `; arrays are
 * accepted too.
 */
export function parseExtensionsHeader(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  const raw = typeof value === 'string' ? value : value.join(',');
  const seen = new Set<string>();
  for (const item of raw.split(',')) {
    const uri = item.trim();
    if (uri !== '') seen.add(uri);
  }
  return [...seen];
}
