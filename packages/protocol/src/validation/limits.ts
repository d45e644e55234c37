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
   * push-config `id`, `referenceTaskIds[]` and `tenant`. Default 256. Identifiers but `messageId`
   * (opaque, never in a URL) also must not contain `/` nor be `.` or `..`, because they are single
   * URL path segments in HTTP+JSON (digest §4.2).
   */
  readonly maxIdLength: number;
  /**
   * Maximum length of a URL or URI, in characters: `Part.url`, push-config `url` and each entry of
   * `message.extensions` (extension URIs). Default 8192.
   */
  readonly maxUrlLength: number;
  /** Maximum nesting depth of free-form JSON (`metadata`, `Part.data`). Levels. Default 64. */
  readonly maxJsonDepth: number;
  /**
   * Maximum size of one data part (`Part.data`), in UTF-8 bytes of its JSON. Default 1 MiB
   * (1_048_576), the same budget as a text part.
   */
  readonly maxDataPartBytes: number;
  /**
   * Maximum number of entries in each of the other lists a client sends: `message.extensions`,
   * `message.referenceTaskIds` and `configuration.acceptedOutputModes`. Count. Default 64, as for
   * parts: a real message names a handful; thousands only inflate every copy of it (history,
   * stream events, webhook bodies).
   */
  readonly maxListItems: number;
  /**
   * Maximum length of a name, in characters: `Part.filename`, `Part.mediaType`, each
   * `acceptedOutputModes` entry and `authentication.scheme`. Default 1024: file systems stop at
   * 255 bytes and media types at 127 + 127 characters (RFC 6838 §4.2) plus parameters.
   */
  readonly maxNameLength: number;
  /**
   * Maximum length of a push-config `token` and of `authentication.credentials`, in characters.
   * Default 8192: each is sent as an HTTP header line to the webhook, and 8 KiB is what common
   * servers accept for one line (nginx `large_client_header_buffers`), so a longer one could not
   * be delivered anyway. A large JWT still fits.
   */
  readonly maxHeaderValueLength: number;
}

export const DEFAULT_PROTOCOL_LIMITS: ProtocolLimits = Object.freeze({
  maxPartsPerMessage: 64,
  maxTextPartLength: 1_048_576,
  maxMetadataBytes: 65_536,
  maxIdLength: 256,
  maxUrlLength: 8192,
  maxJsonDepth: 64,
  maxDataPartBytes: 1_048_576,
  maxListItems: 64,
  maxNameLength: 1024,
  maxHeaderValueLength: 8192,
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
