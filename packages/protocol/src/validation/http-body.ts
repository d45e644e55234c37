import { invalidParams } from '../errors/factories.ts';
import type { TaskPushNotificationConfig } from '../types/push-config.ts';
import type { CancelTaskRequest, SendMessageRequest } from '../types/requests.ts';
import { isPlainObject } from './json-value.ts';
import { limitsOf, runSchema, type HttpParseOptions } from './parse-options.ts';
import { requestSchemas } from './request-schemas.ts';

/** `POST /message:send` and `POST /message:stream`: body = SendMessageRequest (digest §4.2). */
export function parseSendMessageBody(body: unknown, options?: HttpParseOptions): SendMessageRequest {
  const input = withTenant(requireObject(body, false), options);
  return runSchema(requestSchemas(limitsOf(options)).SendMessage, input);
}

/** `POST /tasks/{id}:cancel`: body is `{}` or `{"metadata":…}`; an empty body is allowed. */
export function parseCancelTaskBody(
  id: string,
  body: unknown,
  options?: HttpParseOptions,
): CancelTaskRequest {
  const input = withTenant({ ...requireObject(body, true), id }, options);
  return runSchema(requestSchemas(limitsOf(options)).CancelTask, input);
}

/**
 * `POST /tasks/{taskId}/pushNotificationConfigs`: body = TaskPushNotificationConfig whose task
 * comes from the path. A body `taskId` naming another task is rejected rather than silently ignored.
 */
export function parseCreatePushConfigBody(
  taskId: string,
  body: unknown,
  options?: HttpParseOptions,
): TaskPushNotificationConfig {
  const object = requireObject(body, false);
  const bodyTaskId = object['taskId'] ?? object['task_id'];
  const extra =
    typeof bodyTaskId === 'string' && bodyTaskId !== '' && bodyTaskId !== taskId
      ? [{ field: 'taskId', description: 'must match the task id in the path' }]
      : [];
  const input = withTenant({ ...object, taskId }, options);
  return runSchema(requestSchemas(limitsOf(options)).CreateTaskPushNotificationConfig, input, extra);
}

function requireObject(body: unknown, emptyAllowed: boolean): Record<string, unknown> {
  if (emptyAllowed && (body === undefined || body === null || body === '')) return {};
  if (!isPlainObject(body)) throw invalidParams('request body must be a JSON object');
  // Path values are spread over the body; a snake_case duplicate in the body loses to them
  // because camelCase wins in protoObject.
  return body;
}

function withTenant(
  input: Record<string, unknown>,
  options: HttpParseOptions | undefined,
): Record<string, unknown> {
  return options?.tenant === undefined ? input : { ...input, tenant: options.tenant };
}
