import type { JsonObject, JsonValue, OneOf } from './common.ts';

/** Role enum (digest §2.2). USER is client→server, AGENT is server→client. */
export const Role = {
  UNSPECIFIED: 'ROLE_UNSPECIFIED',
  USER: 'ROLE_USER',
  AGENT: 'ROLE_AGENT',
} as const;

export type Role = (typeof Role)[keyof typeof Role];

/** Proto enum numbers, for lenient ProtoJSON readers (digest §1). */
export const ROLE_NUMBERS: Readonly<Record<Role, number>> = Object.freeze({
  ROLE_UNSPECIFIED: 0,
  ROLE_USER: 1,
  ROLE_AGENT: 2,
});

/** Fields every Part may carry, whatever its content member (digest §2.2). */
export interface PartCommon {
  metadata?: JsonObject;
  /** Allowed for every kind of part. */
  filename?: string;
  /** e.g. `text/plain`, `application/json`, `image/png`. */
  mediaType?: string;
}

/** The `content` oneof of Part: exactly one member is set. */
export interface PartContent {
  text: string;
  /** Inline file bytes, base64 (standard or URL-safe alphabet). */
  raw: string;
  /** A file reference. Validate against SSRF before fetching (spec §14.1). */
  url: string;
  /** Structured data: any JSON value, including `null`. */
  data: JsonValue;
}

/** One piece of message or artifact content: `{text}` | `{raw}` | `{url}` | `{data}` plus common fields. */
export type Part = PartCommon & OneOf<PartContent>;

/** Message (digest §2.2). */
export interface Message {
  /** REQUIRED. Set by whoever creates the message; the idempotency key of a send. */
  messageId: string;
  /** Agent messages MUST carry it; optional on client messages. */
  contextId?: string;
  /** On a client message it must name an existing task. */
  taskId?: string;
  /** REQUIRED. */
  role: Role;
  /** REQUIRED, at least one. */
  parts: Part[];
  /** Extension data is keyed by the extension URI. */
  metadata?: JsonObject;
  /** URIs of extensions present in or contributing to this message. */
  extensions?: string[];
  referenceTaskIds?: string[];
}
