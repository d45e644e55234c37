// @switchyard/client: a typed A2A 1.0 client (JSON-RPC and HTTP+JSON) whose default helper is the
// safe pattern: send non-blocking, subscribe, resume with Last-Event-ID, fall back to polling.
// README.md documents the API and the `switchyard` CLI.

export { A2AClient } from './client/a2a-client.ts';
export type { WebhookOptions } from './client/a2a-client.ts';
export { DEFAULT_STREAM_IDLE_TIMEOUT_MS } from './client/a2a-client-options.ts';
export type { A2AClientOptions } from './client/a2a-client-options.ts';

export type {
  A2ATransport,
  BindingTransportOptions,
  CallOptions,
  CancelTaskOptions,
  GetTaskOptions,
  ListPushConfigsOptions,
  NewPushConfig,
  StreamEvent,
  SubscribeOptions,
} from './transport/transport.ts';
export { JsonRpcTransport } from './transport/jsonrpc-transport.ts';
export { RestTransport } from './transport/rest-transport.ts';
export { selectInterface } from './transport/select-interface.ts';
export type { SelectedInterface } from './transport/select-interface.ts';
export { HttpClient } from './http/http-client.ts';
export type { ErrorDecoder, FetchLike, HttpClientOptions, HttpRequest } from './http/http-client.ts';

export { agentCardUrl, WELL_KNOWN_CARD_PATH } from './card/card-url.ts';
export { fetchAgentCard } from './card/fetch-card.ts';

export { ArtifactAssembler, collectArtifacts } from './artifacts/artifact-assembler.ts';
export { TaskTracker } from './run/task-tracker.ts';
export { isSettled } from './run/settled.ts';
export {
  DEFAULT_MAX_STREAM_FAILURES,
  DEFAULT_POLL_BACKOFF,
  DEFAULT_RECONNECT_BACKOFF,
} from './run/run-options.ts';
export type { FollowOptions, RunNotice, RunOptions } from './run/run-options.ts';
export { dataPart, textOf, userMessage } from './messages.ts';
export type { UserMessageOptions } from './messages.ts';

export { A2AResponseError, isA2AResponseError } from './errors/response-error.ts';
export { NetworkError, isNetworkError } from './errors/network-error.ts';
export { RunTimeoutError } from './errors/run-timeout-error.ts';

export { fullJitterDelay, sleep } from './retry/backoff.ts';
export type { BackoffOptions } from './retry/backoff.ts';
export { isTransient, resolveRetryOptions } from './retry/retry-policy.ts';
export type { ResolvedRetryOptions, RetryOptions } from './retry/retry-policy.ts';
export { retryAfterSeconds } from './retry/retry-after.ts';
export { withRetry } from './retry/with-retry.ts';
export type { RetryListener } from './retry/with-retry.ts';

export { AdminClient } from './admin/admin-client.ts';
export type { AdminClientOptions } from './admin/admin-client.ts';
export { AdminApiError } from './admin/admin-api-error.ts';
export type * from './admin/admin-types.ts';

export { A2A_VERSION, SUPPORTED_BINDINGS } from './version.ts';
export type { SupportedBinding } from './version.ts';
