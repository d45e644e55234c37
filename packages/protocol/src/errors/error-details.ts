/** `ErrorInfo.domain` for every A2A error (digest §5.1). */
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';

/** ProtoJSON `Any` type URLs of the detail messages A2A uses (digest §5.1). */
export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

/** One `google.rpc.BadRequest.FieldViolation`: `field` is a camelCase dotted path like `message.parts[0]`. */
export interface FieldViolation {
  field: string;
  description: string;
}

/** `google.rpc.ErrorInfo` in ProtoJSON `Any` form. `metadata` values are strings (digest §5.1). */
export interface ErrorInfo {
  '@type': typeof ERROR_INFO_TYPE;
  reason: string;
  domain: string;
  metadata?: Record<string, string>;
}

/** `google.rpc.BadRequest` in ProtoJSON `Any` form. */
export interface BadRequest {
  '@type': typeof BAD_REQUEST_TYPE;
  fieldViolations: FieldViolation[];
}

/** Any detail object: JSON-RPC `error.data[]` and google.rpc.Status `details[]` entries. */
export type ErrorDetail = ErrorInfo | BadRequest | { '@type': string; [key: string]: unknown };
