// A2A 0.3 ↔ 1.0 translation for the JSON-RPC binding (digest §13): pure functions, both
// directions. `fromV03*` read untrusted 0.3 JSON leniently (unknown members pass through) and
// return 1.0 shapes that still need the 1.0 validator; `toV03*` write 0.3 from valid 1.0 values.

export type * from './types.ts';
export { V03_METHODS, V03_STREAMING_METHODS, isV03Method, toV03Method } from './methods.ts';
export type { V03Method } from './methods.ts';
export { parseV03JsonRpcRequest } from './envelope.ts';
export type { V03JsonRpcRequestEnvelope } from './envelope.ts';
export { fromV03Role, fromV03TaskState, toV03Role, toV03TaskState } from './enums.ts';
export { DATA_PART_COMPAT_FLAG, fromV03Part, toV03Part } from './parts.ts';
export {
  fromV03Artifact,
  fromV03Message,
  fromV03Task,
  fromV03TaskStatus,
  toV03Artifact,
  toV03Message,
  toV03Task,
  toV03TaskStatus,
} from './objects.ts';
export { fromV03SendResult, fromV03StreamResult, toV03SendResult, toV03StreamResult } from './events.ts';
export {
  fromV03AuthenticationInfo,
  fromV03PushConfig,
  fromV03TaskPushConfig,
  toV03AuthenticationInfo,
  toV03PushConfig,
  toV03TaskPushConfig,
} from './push-config.ts';
export {
  fromV03CancelParams,
  fromV03DeletePushConfigParams,
  fromV03GetPushConfigParams,
  fromV03ListPushConfigParams,
  fromV03PushConfigList,
  fromV03ResubscribeParams,
  fromV03SendParams,
  fromV03SetPushConfigParams,
  fromV03TaskQueryParams,
  toV03CancelParams,
  toV03DeletePushConfigParams,
  toV03GetPushConfigParams,
  toV03ListPushConfigParams,
  toV03PushConfigList,
  toV03ResubscribeParams,
  toV03SendParams,
  toV03SetPushConfigParams,
  toV03TaskQueryParams,
} from './requests.ts';
export {
  fromV03SecurityRequirement,
  fromV03SecurityScheme,
  toV03SecurityRequirement,
  toV03SecurityScheme,
} from './security.ts';
export {
  V03_CARD_PROTOCOL_VERSION,
  V03_PROTOCOL_VERSION,
  fromV03AgentCard,
  isV03Version,
  toV03AgentCard,
} from './agent-card.ts';
export type { ToV03AgentCardOptions } from './agent-card.ts';
export { fromV03JsonRpcError, toV03JsonRpcError } from './errors.ts';
