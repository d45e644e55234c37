import { z } from 'zod';
import { TaskState } from '../task-state.ts';
import type { A2AMethod, A2AMethodRequest } from '../types/methods.ts';
import type { ProtocolLimits } from './limits.ts';
import { messageSchema, metadataOf } from './message-schemas.ts';
import { protoObject } from './proto-object.ts';
import { pushConfigSchema } from './push-config-schemas.ts';
import {
  boundedList,
  idSchema,
  int32,
  optionalId,
  pageTokenSchema,
  taskStateSchema,
  tenantSchema,
  timestampSchema,
} from './scalars.ts';

/** One validator per method, producing that method's request type. */
export type RequestSchemas = { [M in A2AMethod]: z.ZodType<A2AMethodRequest[M]> };

// ListTasks.pageSize is `optional int32` (presence tracked), so 0 is an explicit, invalid value
// (digest §7.4 rule 22: 1..100, reject rather than clamp, as a2a-js and a2a-python do).
const listTasksPageSize = () => int32(1, 100).optional();

// ListTaskPushNotificationConfigs.pageSize is a plain int32: 0 is its default and means "unset".
// The spec states no maximum for it (the 1-100 range is ListTasks'), so a larger page is served
// as the largest this server gives (AIP-158: clamp, don't refuse); a negative one is still wrong.
const MAX_PUSH_CONFIGS_PAGE = 100;
const pushConfigsPageSize = () =>
  z.preprocess(
    (v) => (v === 0 || v === '0' ? undefined : v),
    int32(1)
      .transform((n) => Math.min(n, MAX_PUSH_CONFIGS_PAGE))
      .optional(),
  );

// historyLength: negative is InvalidParams (digest §7.3).
const historyLength = () => int32(0).optional();

function build(limits: ProtocolLimits): RequestSchemas {
  const tenant = tenantSchema(limits.maxIdLength);
  const id = idSchema(limits.maxIdLength);
  const sendMessage = protoObject({
    tenant,
    message: messageSchema(limits, { userOnly: true }),
    configuration: protoObject({
      acceptedOutputModes: boundedList(z.string().max(limits.maxNameLength), limits.maxListItems).optional(),
      taskPushNotificationConfig: pushConfigSchema(limits, { taskIdRequired: false }).optional(),
      historyLength: historyLength(),
      returnImmediately: z.boolean().optional(),
    }).optional(),
    metadata: metadataOf(limits).optional(),
  });
  const taskAndConfigId = protoObject({ tenant, taskId: id, id });
  return {
    SendMessage: sendMessage,
    SendStreamingMessage: sendMessage,
    GetTask: protoObject({ tenant, id, historyLength: historyLength() }),
    ListTasks: protoObject({
      tenant,
      contextId: optionalId(limits.maxIdLength),
      // TASK_STATE_UNSPECIFIED means "no filter" (digest §7.4 rule 23): drop it.
      status: taskStateSchema()
        .transform((s) => (s === TaskState.UNSPECIFIED ? undefined : s))
        .optional(),
      pageSize: listTasksPageSize(),
      pageToken: pageTokenSchema(),
      historyLength: historyLength(),
      // Keeps tasks whose status timestamp is at or after it (§7.4 rule 23), as the client sees
      // them: shown at millisecond precision (truncated), so a finer bound is rounded up.
      statusTimestampAfter: timestampSchema({ subMillisecond: 'ceil' }).optional(),
      includeArtifacts: z.boolean().optional(),
    }),
    CancelTask: protoObject({ tenant, id, metadata: metadataOf(limits).optional() }),
    SubscribeToTask: protoObject({ tenant, id }),
    CreateTaskPushNotificationConfig: pushConfigSchema(limits, { taskIdRequired: true }),
    GetTaskPushNotificationConfig: taskAndConfigId,
    ListTaskPushNotificationConfigs: protoObject({
      tenant,
      taskId: id,
      pageSize: pushConfigsPageSize(),
      pageToken: pageTokenSchema(),
    }),
    DeleteTaskPushNotificationConfig: taskAndConfigId,
    GetExtendedAgentCard: protoObject({ tenant }),
  };
}

const cache = new WeakMap<ProtocolLimits, RequestSchemas>();

/** The validators for `limits`, built once per limits object. */
export function requestSchemas(limits: ProtocolLimits): RequestSchemas {
  let schemas = cache.get(limits);
  if (!schemas) {
    schemas = build(limits);
    cache.set(limits, schemas);
  }
  return schemas;
}
