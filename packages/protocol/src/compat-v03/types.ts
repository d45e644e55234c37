import type { AgentExtension, AgentInterface, AgentProvider } from '../types/agent-card.ts';
import type { JsonObject } from '../types/common.ts';

// The A2A 0.3 JSON-RPC wire shapes (tag v0.3.0, `types/src/types.ts`), as far as the 0.3 ↔ 1.0
// translation needs them (digest §13). Every object carries its `kind` discriminator.

export type TaskStateV03 =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'completed'
  | 'canceled'
  | 'failed'
  | 'rejected'
  | 'auth-required'
  | 'unknown';

export type RoleV03 = 'user' | 'agent';

export interface TextPartV03 {
  kind: 'text';
  text: string;
  metadata?: JsonObject;
}

export interface FileWithBytesV03 {
  /** base64. */
  bytes: string;
  mimeType?: string;
  name?: string;
}

export interface FileWithUriV03 {
  uri: string;
  mimeType?: string;
  name?: string;
}

export interface FilePartV03 {
  kind: 'file';
  file: FileWithBytesV03 | FileWithUriV03;
  metadata?: JsonObject;
}

/** 0.3 data is always an object; see `DATA_PART_COMPAT_FLAG` for other JSON values. */
export interface DataPartV03 {
  kind: 'data';
  data: JsonObject;
  metadata?: JsonObject;
}

export type PartV03 = TextPartV03 | FilePartV03 | DataPartV03;

export interface MessageV03 {
  kind: 'message';
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: RoleV03;
  parts: PartV03[];
  metadata?: JsonObject;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface TaskStatusV03 {
  state: TaskStateV03;
  message?: MessageV03;
  timestamp?: string;
}

export interface ArtifactV03 {
  artifactId: string;
  name?: string;
  description?: string;
  parts: PartV03[];
  metadata?: JsonObject;
  extensions?: string[];
}

export interface TaskV03 {
  kind: 'task';
  id: string;
  /** Required in 0.3. */
  contextId: string;
  status: TaskStatusV03;
  artifacts?: ArtifactV03[];
  history?: MessageV03[];
  metadata?: JsonObject;
}

export interface TaskStatusUpdateEventV03 {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: TaskStatusV03;
  /** The last event of the stream: removed in 1.0, where the transport closing says it. */
  final: boolean;
  metadata?: JsonObject;
}

export interface TaskArtifactUpdateEventV03 {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: ArtifactV03;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** message/send result. */
export type SendResultV03 = TaskV03 | MessageV03;

/** One `result` of a message/stream or tasks/resubscribe SSE event. */
export type StreamResultV03 = TaskV03 | MessageV03 | TaskStatusUpdateEventV03 | TaskArtifactUpdateEventV03;

export interface PushNotificationAuthenticationInfoV03 {
  schemes: string[];
  credentials?: string;
}

export interface PushNotificationConfigV03 {
  id?: string;
  url: string;
  token?: string;
  authentication?: PushNotificationAuthenticationInfoV03;
}

/** tasks/pushNotificationConfig/set params and every push-config result of 0.3. */
export interface TaskPushNotificationConfigV03 {
  taskId: string;
  pushNotificationConfig: PushNotificationConfigV03;
}

export interface MessageSendConfigurationV03 {
  acceptedOutputModes?: string[];
  historyLength?: number;
  pushNotificationConfig?: PushNotificationConfigV03;
  /** Unset is read as blocking; see `fromV03SendParams`. */
  blocking?: boolean;
}

/** message/send and message/stream params. */
export interface MessageSendParamsV03 {
  message: MessageV03;
  configuration?: MessageSendConfigurationV03;
  metadata?: JsonObject;
}

/** tasks/get params. */
export interface TaskQueryParamsV03 {
  id: string;
  historyLength?: number;
  metadata?: JsonObject;
}

/** tasks/cancel and tasks/resubscribe params. */
export interface TaskIdParamsV03 {
  id: string;
  metadata?: JsonObject;
}

/** tasks/pushNotificationConfig/get params: `id` is the TASK id. */
export interface GetTaskPushNotificationConfigParamsV03 {
  id: string;
  pushNotificationConfigId?: string;
  metadata?: JsonObject;
}

/** tasks/pushNotificationConfig/list params: `id` is the task id. */
export interface ListTaskPushNotificationConfigParamsV03 {
  id: string;
  metadata?: JsonObject;
}

/** tasks/pushNotificationConfig/delete params: `id` is the task id. */
export interface DeleteTaskPushNotificationConfigParamsV03 {
  id: string;
  pushNotificationConfigId: string;
  metadata?: JsonObject;
}

/** A 0.3 JSON-RPC error: `data` is free-form (1.0 made it an array of `Any`). */
export interface JsonRpcErrorObjectV03 {
  code: number;
  message: string;
  data?: JsonObject;
}

/** `{ schemeName: scopes }` (1.0: `{schemes: {name: {list: scopes}}}`). */
export type SecurityRequirementV03 = Record<string, string[]>;

export interface OAuthFlowV03 {
  authorizationUrl?: string;
  tokenUrl?: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}

/** OpenAPI flows: several at once (1.0 allows exactly one). */
export interface OAuthFlowsV03 {
  authorizationCode?: OAuthFlowV03;
  clientCredentials?: OAuthFlowV03;
  implicit?: OAuthFlowV03;
  password?: OAuthFlowV03;
}

/** OpenAPI-style schemes discriminated by `type` (1.0: the oneof member name). */
export type SecuritySchemeV03 =
  | { type: 'apiKey'; in: string; name: string; description?: string }
  | { type: 'http'; scheme: string; bearerFormat?: string; description?: string }
  | { type: 'oauth2'; flows: OAuthFlowsV03; oauth2MetadataUrl?: string; description?: string }
  | { type: 'openIdConnect'; openIdConnectUrl: string; description?: string }
  | { type: 'mutualTLS'; description?: string };

export interface AgentInterfaceV03 {
  url: string;
  transport: string;
}

export interface AgentCapabilitiesV03 {
  streaming?: boolean;
  pushNotifications?: boolean;
  stateTransitionHistory?: boolean;
  extensions?: AgentExtension[];
  /** Not 0.3: the 1.0 field, kept in the "superset" card beside `supportsAuthenticatedExtendedCard`. */
  extendedAgentCard?: boolean;
}

export interface AgentSkillV03 {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  security?: SecurityRequirementV03[];
}

export interface AgentCardSignatureV03 {
  protected: string;
  signature: string;
  header?: JsonObject;
}

/** The 0.3 AgentCard (digest §13.4). */
export interface AgentCardV03 {
  protocolVersion: string;
  name: string;
  description: string;
  /** The preferred endpoint. */
  url: string;
  preferredTransport?: string;
  additionalInterfaces?: AgentInterfaceV03[];
  iconUrl?: string;
  provider?: AgentProvider;
  version: string;
  documentationUrl?: string;
  capabilities: AgentCapabilitiesV03;
  securitySchemes?: Record<string, SecuritySchemeV03>;
  security?: SecurityRequirementV03[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkillV03[];
  supportsAuthenticatedExtendedCard?: boolean;
  signatures?: AgentCardSignatureV03[];
  /**
   * Not 0.3: the 1.0 interfaces, embedded so a 1.0 client that fetched the card without
   * `A2A-Version` still finds them ("superset" card, as a2a-js's compat layer serves).
   */
  supportedInterfaces?: AgentInterface[];
}
