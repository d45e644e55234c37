/**
 * One Headers object from several sources, a later source winning name by name whatever the
 * letter case (header names are case-insensitive, RFC 9110 §5.1). Spreading plain records kept
 * `A2A-Version` and `a2a-version` side by side, and fetch then sent both values joined
 * ("1.0, 0.3"): a caller's header must replace the built-in one, not add to it.
 */
export function mergeHeaders(...sources: Array<Record<string, string> | Headers | undefined>): Headers {
  const merged = new Headers();
  for (const source of sources) {
    if (!source) continue;
    const entries = source instanceof Headers ? source.entries() : Object.entries(source);
    for (const [name, value] of entries) merged.set(name, value);
  }
  return merged;
}
