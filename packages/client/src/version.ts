/** The protocol version this client speaks, sent as `A2A-Version` on every request (digest §6). */
export const A2A_VERSION = '1.0';

/** The bindings this client implements; gRPC is not supported (digest §4.3). */
export const SUPPORTED_BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;

export type SupportedBinding = (typeof SUPPORTED_BINDINGS)[number];
