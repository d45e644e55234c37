// @switchyard/protocol: A2A 1.0 types, request validation, the error registry, the task state
// machine and the A2A 0.3 ↔ 1.0 translation (compat-v03/). No I/O. Digest:
// /work/shared/spec/A2A-1.0.md.

export type { JsonObject, JsonValue, OneOf, Timestamp } from './types/common.ts';
export { Role, ROLE_NUMBERS } from './types/message.ts';
export type { Message, Part, PartCommon, PartContent } from './types/message.ts';
export type { Artifact, Task, TaskStatus } from './types/task.ts';
export type {
  SendMessageResponse,
  StreamResponse,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
} from './types/events.ts';
export type {
  CancelTaskRequest,
  GetExtendedAgentCardRequest,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageConfiguration,
  SendMessageRequest,
  SubscribeToTaskRequest,
} from './types/requests.ts';
export type {
  AuthenticationInfo,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from './types/push-config.ts';
export { ProtocolBinding } from './types/agent-card.ts';
export type {
  AgentCapabilities,
  AgentCard,
  AgentCardSignature,
  AgentExtension,
  AgentInterface,
  AgentProvider,
  AgentSkill,
} from './types/agent-card.ts';
export type {
  ApiKeySecurityScheme,
  AuthorizationCodeOAuthFlow,
  ClientCredentialsOAuthFlow,
  DeviceCodeOAuthFlow,
  HttpAuthSecurityScheme,
  ImplicitOAuthFlow,
  MutualTlsSecurityScheme,
  OAuth2SecurityScheme,
  OAuthFlows,
  OpenIdConnectSecurityScheme,
  PasswordOAuthFlow,
  SecurityRequirement,
  SecurityScheme,
  StringList,
} from './types/security.ts';
export { A2A_METHODS, STREAMING_METHODS, isA2AMethod } from './types/methods.ts';
export type { A2AMethod, A2AMethodRequest, A2AMethodResponse } from './types/methods.ts';
export type {
  JsonRpcErrorObject,
  ExactNumberId,
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcSuccessResponse,
} from './types/json-rpc.ts';

export {
  INTERRUPTED_STATES,
  TASK_STATE_NUMBERS,
  TASK_STATES,
  TERMINAL_STATES,
  TaskState,
  isInterrupted,
  isTaskState,
  isTerminal,
} from './task-state.ts';
export {
  IllegalTransitionError,
  TRANSITIONS,
  allowedFrom,
  allowedInto,
  assertTransition,
  canTransition,
} from './transitions.ts';
export { trimHistory, withTrimmedHistory } from './history.ts';
export {
  DEFAULT_VERSION_WHEN_MISSING,
  SUPPORTED_VERSIONS,
  negotiateVersion,
  parseExtensionsHeader,
} from './version.ts';
export type { VersionNegotiation } from './version.ts';
export { formatTimestamp, parseTimestamp, type ParseTimestampOptions } from './timestamp.ts';

export { A2AError, isA2AError, isA2AErrorOfKind } from './errors/a2a-error.ts';
export type { A2AErrorOptions } from './errors/a2a-error.ts';
export {
  ERROR_KINDS,
  ERROR_MAPPINGS,
  ERROR_REGISTRY,
  JSON_RPC_SERVER_ERROR_CODE,
  errorDefinition,
  errorKindByJsonRpcCode,
  errorKindByReason,
} from './errors/registry.ts';
export type { ErrorDefinition, ErrorKind, ErrorMapping } from './errors/registry.ts';
export { GRPC_STATUS_CODES } from './errors/grpc-status.ts';
export type { GrpcStatusName } from './errors/grpc-status.ts';
export { A2A_ERROR_DOMAIN, BAD_REQUEST_TYPE, ERROR_INFO_TYPE } from './errors/error-details.ts';
export type { BadRequest, ErrorDetail, ErrorInfo, FieldViolation } from './errors/error-details.ts';
export * from './errors/factories.ts';
export { errorDetails, toHttpError, toJsonRpcError } from './errors/transport-mapping.ts';
export type { HttpError } from './errors/transport-mapping.ts';
export { fromUnknown } from './errors/from-unknown.ts';
export { fromHttpErrorBody, fromJsonRpcErrorObject } from './errors/from-wire.ts';

export { DEFAULT_PROTOCOL_LIMITS, resolveLimits } from './validation/limits.ts';
export type { ProtocolLimits } from './validation/limits.ts';
export type { HttpParseOptions, ParseOptions } from './validation/parse-options.ts';
export { parseRequestParams } from './validation/parse-request-params.ts';
export {
  parseCancelTaskBody,
  parseCreatePushConfigBody,
  parseSendMessageBody,
} from './validation/http-body.ts';
export {
  parseGetTaskQuery,
  parseListPushConfigsQuery,
  parseListTasksQuery,
} from './validation/http-query.ts';
export type { QueryParams } from './validation/http-query.ts';
export { jsonRpcIdOf, parseJsonRpcRequest } from './validation/json-rpc-envelope.ts';
export { parseJsonRequest } from './validation/parse-json-request.ts';
export type { JsonRpcRequestEnvelope } from './validation/json-rpc-envelope.ts';
export { isBase64 } from './validation/scalars.ts';

export * from './compat-v03/index.ts';
export { retryAfterMs } from './retry-after.ts';
