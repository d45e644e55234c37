import type { AuthenticationInfo, TaskPushNotificationConfig } from '../types/push-config.ts';
import { compact, nonEmpty, recordOf } from './shape.ts';
import type {
  PushNotificationAuthenticationInfoV03,
  PushNotificationConfigV03,
  TaskPushNotificationConfigV03,
} from './types.ts';

// Push configs (digest §13.1, §13.3): 0.3 nests the config under `pushNotificationConfig` next to
// `taskId`; 1.0 is one flat TaskPushNotificationConfig. Auth `schemes[]` became one `scheme`.

export function toV03AuthenticationInfo(auth: AuthenticationInfo): PushNotificationAuthenticationInfoV03 {
  return compact({ schemes: auth.scheme ? [auth.scheme] : [], credentials: nonEmpty(auth.credentials) });
}

/** Lossy: 1.0 has room for one scheme, the first one listed is kept. */
export function fromV03AuthenticationInfo(auth: PushNotificationAuthenticationInfoV03): AuthenticationInfo {
  const a = recordOf(auth) as PushNotificationAuthenticationInfoV03 | undefined;
  if (!a) return auth as unknown as AuthenticationInfo;
  const scheme = Array.isArray(a.schemes) ? a.schemes[0] : undefined;
  return compact({ scheme: scheme as string, credentials: a.credentials });
}

/** The flat 0.3 PushNotificationConfig (as embedded in MessageSendConfiguration). */
export function toV03PushConfig(config: TaskPushNotificationConfig): PushNotificationConfigV03 {
  return compact({
    id: nonEmpty(config.id),
    url: config.url,
    token: nonEmpty(config.token),
    authentication: config.authentication && toV03AuthenticationInfo(config.authentication),
  });
}

export function fromV03PushConfig(
  config: PushNotificationConfigV03,
  taskId?: string,
): TaskPushNotificationConfig {
  const c = recordOf(config) as PushNotificationConfigV03 | undefined;
  if (!c) return config as unknown as TaskPushNotificationConfig;
  return compact({
    id: c.id,
    taskId,
    url: c.url,
    token: c.token,
    authentication: c.authentication && fromV03AuthenticationInfo(c.authentication),
  });
}

export function toV03TaskPushConfig(config: TaskPushNotificationConfig): TaskPushNotificationConfigV03 {
  return { taskId: config.taskId ?? '', pushNotificationConfig: toV03PushConfig(config) };
}

export function fromV03TaskPushConfig(config: TaskPushNotificationConfigV03): TaskPushNotificationConfig {
  const c = recordOf(config) as TaskPushNotificationConfigV03 | undefined;
  if (!c) return config as unknown as TaskPushNotificationConfig;
  const inner = recordOf(c.pushNotificationConfig)
    ? c.pushNotificationConfig
    : ({} as PushNotificationConfigV03);
  return fromV03PushConfig(inner, c.taskId);
}
