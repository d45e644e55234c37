/** Any JSON value: the ProtoJSON form of `google.protobuf.Value` (digest §1). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object: the ProtoJSON form of `google.protobuf.Struct` (`metadata`, `params`, `header`). */
export type JsonObject = { [key: string]: JsonValue };

/**
 * A `google.protobuf.Timestamp` in ProtoJSON form: RFC 3339 in UTC with a `Z` suffix. Emit with
 * millisecond precision (`YYYY-MM-DDTHH:mm:ss.sssZ`, digest §1); see `formatTimestamp`.
 */
export type Timestamp = string;

/**
 * A proto `oneof` in ProtoJSON form: exactly one member is present and its name is the
 * discriminator (digest §1, there is no `kind` field in 1.0). The other members are typed `never`
 * so `if (x.text !== undefined)` narrows without casts.
 */
export type OneOf<T extends object> = {
  [K in keyof T]: { [P in K]: T[P] } & { [P in Exclude<keyof T, K>]?: never };
}[keyof T];
