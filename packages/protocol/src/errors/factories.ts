import type { TaskState } from '../task-state.ts';
import { A2AError } from './a2a-error.ts';
import type { FieldViolation } from './error-details.ts';

// Values echoed into ErrorInfo metadata may come from the client; bound them so an error reply
// can never be larger than a sensible header-sized string.
const MAX_ECHO = 256;
const clip = (value: string): string => (value.length > MAX_ECHO ? value.slice(0, MAX_ECHO) : value);

/** Unknown, purged or inaccessible task, or a missing push config (digest §3, §9 rule 4). */
export const taskNotFound = (taskId: string): A2AError =>
  new A2AError('TaskNotFound', { metadata: { taskId: clip(taskId) } });

/** Cancel on a terminal task (§7.5 rule 27). */
export const taskNotCancelable = (taskId: string, state?: TaskState): A2AError =>
  new A2AError('TaskNotCancelable', { metadata: { taskId: clip(taskId), ...(state ? { state } : {}) } });

/** `capabilities.pushNotifications` is not true (§7.9). */
export const pushNotificationNotSupported = (): A2AError => new A2AError('PushNotificationNotSupported');

/** Streaming not declared, message/subscribe to a terminal task, extended card not declared. */
export const unsupportedOperation = (message?: string): A2AError =>
  new A2AError('UnsupportedOperation', message === undefined ? {} : { message });

/**
 * A part's media type the agent does not take. Given what it takes (its card's input modes), the
 * message lists them, and so does `metadata.accepted` (comma-separated, as ErrorInfo metadata is
 * strings), so a client can pick a type it may send.
 */
export const contentTypeNotSupported = (mediaType?: string, accepted?: readonly string[]): A2AError => {
  const metadata: Record<string, string> = {};
  if (mediaType) metadata['mediaType'] = clip(mediaType);
  if (accepted?.length) metadata['accepted'] = clip(accepted.join(','));
  const message =
    mediaType && accepted?.length
      ? `Incompatible content types: this agent does not take ${clip(mediaType)}; it takes ${clip(accepted.join(', '))}`
      : undefined;
  return new A2AError('ContentTypeNotSupported', {
    ...(message ? { message } : {}),
    ...(Object.keys(metadata).length ? { metadata } : {}),
  });
};

export const invalidAgentResponse = (message?: string, cause?: unknown): A2AError =>
  new A2AError('InvalidAgentResponse', { ...(message === undefined ? {} : { message }), cause });

export const extendedAgentCardNotConfigured = (): A2AError => new A2AError('ExtendedAgentCardNotConfigured');

/** `required: true` extensions the client did not activate; listed comma-separated in metadata. */
export const extensionSupportRequired = (extensionUris: readonly string[]): A2AError =>
  new A2AError('ExtensionSupportRequired', { metadata: { extensions: extensionUris.join(',') } });

/** Supported versions go into ErrorInfo metadata, not problem+json (§12 #8). */
export const versionNotSupported = (requested: string, supported: readonly string[]): A2AError =>
  new A2AError('VersionNotSupported', {
    message: `Version ${clip(requested)} is not supported`,
    metadata: { requestedVersion: clip(requested), supportedVersions: supported.join(',') },
  });

export const jsonParseError = (cause?: unknown): A2AError => new A2AError('JSONParse', { cause });

export const invalidRequest = (message?: string, fieldViolations?: readonly FieldViolation[]): A2AError =>
  new A2AError('InvalidRequest', { ...(message === undefined ? {} : { message }), fieldViolations });

export const methodNotFound = (method: string): A2AError =>
  new A2AError('MethodNotFound', { metadata: { method: clip(method) } });

export const invalidParams = (message?: string, fieldViolations?: readonly FieldViolation[]): A2AError =>
  new A2AError('InvalidParams', { ...(message === undefined ? {} : { message }), fieldViolations });

/** Always the safe generic message; the cause stays server-side (ARCHITECTURE §3 rule 7). */
export const internalError = (cause?: unknown): A2AError => new A2AError('Internal', { cause });

/** HTTP 401: the gateway adds `WWW-Authenticate` for the card's schemes (digest §9 rule 2). */
export const unauthenticated = (message?: string): A2AError =>
  new A2AError('Unauthenticated', message === undefined ? {} : { message });

/** Never use this to hide a task's existence; answer TaskNotFound instead (§12 #11). */
export const permissionDenied = (message?: string): A2AError =>
  new A2AError('PermissionDenied', message === undefined ? {} : { message });

/** Rate limit or quota hit. `retryAfterSeconds` becomes `Retry-After`. */
export const resourceExhausted = (retryAfterSeconds?: number, message?: string): A2AError =>
  new A2AError('ResourceExhausted', { retryAfterSeconds, ...(message === undefined ? {} : { message }) });

/** Request body over the gateway's limit; `limitBytes` is echoed in metadata. */
export const payloadTooLarge = (limitBytes?: number): A2AError =>
  new A2AError(
    'PayloadTooLarge',
    limitBytes === undefined ? {} : { metadata: { limitBytes: String(limitBytes) } },
  );

/** Temporary failure (HTTP 503 + Retry-After, digest §5.3). */
export const unavailable = (retryAfterSeconds?: number, cause?: unknown): A2AError =>
  new A2AError('Unavailable', { retryAfterSeconds, cause });
