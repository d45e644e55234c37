import type { ProtocolLimits } from './limits.ts';
import { protoObject } from './proto-object.ts';
import {
  absoluteUrlSchema,
  authSchemeSchema,
  idSchema,
  optionalHeaderValue,
  optionalId,
  tenantSchema,
} from './scalars.ts';

/** AuthenticationInfo: `scheme` is required whenever `authentication` is present (digest §2.4). */
function authenticationSchema(limits: ProtocolLimits) {
  return protoObject({
    scheme: authSchemeSchema(limits.maxNameLength),
    // Sent as `Authorization: <scheme> <credentials>` by the pusher (digest §8).
    credentials: optionalHeaderValue(limits.maxHeaderValueLength),
  });
}

export interface PushConfigSchemaOptions {
  /** CreateTaskPushNotificationConfig names its task; the config embedded in SendMessage leaves it empty. */
  taskIdRequired: boolean;
}

/** TaskPushNotificationConfig (digest §2.4, §8). */
export function pushConfigSchema(limits: ProtocolLimits, options: PushConfigSchemaOptions) {
  return protoObject({
    tenant: tenantSchema(limits.maxIdLength),
    id: optionalId(limits.maxIdLength),
    taskId: options.taskIdRequired ? idSchema(limits.maxIdLength) : optionalId(limits.maxIdLength),
    url: absoluteUrlSchema(limits.maxUrlLength, true),
    // Sent as the `X-A2A-Notification-Token` header (digest §12 #6).
    token: optionalHeaderValue(limits.maxHeaderValueLength),
    authentication: authenticationSchema(limits).optional(),
  });
}
