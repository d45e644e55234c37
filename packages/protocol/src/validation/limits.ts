/**
 * Size limits applied while validating requests (digest §9 rule 7: "limit message, file and
 * request sizes"). The whole-body limit belongs to the gateway (PayloadTooLargeError); these bound
 * the pieces a body can hold. Pass a resolved object that lives as long as the server: validators
 * are built once per limits object and cached.
 */
export interface ProtocolLimits {
  /** Maximum number of parts in one message. Count. Default 64. */
  readonly maxPartsPerMessage: number;
  /** Maximum length of one text part, in UTF-16 code units (JS string length). Default 1 MiB (1_048_576). */
  readonly maxTextPartLength: number;
  /** Maximum size of one `metadata` object, in UTF-8 bytes of its JSON. Default 64 KiB (65_536). */
  readonly maxMetadataBytes: number;
  /**
   * Maximum length of an identifier, in characters: `messageId`, `contextId`, `taskId`, `id`,
   * push-config `id`, `referenceTaskIds[]` and `tenant`. Default 256. Identifiers also must not
   * contain `/`, because they are single URL path segments in HTTP+JSON (digest §4.2).
   */
  readonly maxIdLength: number;
  /** Maximum length of a URL (`Part.url`, push-config `url`), in characters. Default 8192. */
  readonly maxUrlLength: number;
  /** Maximum nesting depth of free-form JSON (`metadata`, `Part.data`). Levels. Default 64. */
  readonly maxJsonDepth: number;
}

export const DEFAULT_PROTOCOL_LIMITS: ProtocolLimits = Object.freeze({
  maxPartsPerMessage: 64,
  maxTextPartLength: 1_048_576,
  maxMetadataBytes: 65_536,
  maxIdLength: 256,
  maxUrlLength: 8192,
  maxJsonDepth: 64,
});

/** Fills missing fields with defaults and freezes; rejects non-positive or non-integer values. */
export function resolveLimits(partial: Partial<ProtocolLimits> = {}): ProtocolLimits {
  const resolved = { ...DEFAULT_PROTOCOL_LIMITS, ...partial };
  for (const [key, value] of Object.entries(resolved)) {
    if (!Number.isInteger(value) || value < 1) {
      throw new RangeError(`ProtocolLimits.${key} must be a positive integer, got ${String(value)}`);
    }
  }
  return Object.freeze(resolved);
}
