import type { FieldViolation } from '../errors/error-details.ts';
import type { ListTaskPushNotificationConfigsRequest } from '../types/push-config.ts';
import type { GetTaskRequest, ListTasksRequest } from '../types/requests.ts';
import { limitsOf, runSchema, type HttpParseOptions } from './parse-options.ts';
import { requestSchemas } from './request-schemas.ts';

/** A parsed query string as Node frameworks give it: repeated keys become arrays. */
export type QueryParams = Readonly<Record<string, string | readonly string[] | undefined>>;

// Query booleans are the words true/false (digest §4.2 "Query parameters").
const BOOLEAN_FIELDS = new Set(['includeArtifacts', 'include_artifacts']);

/** `GET /tasks/{id}?historyLength=…` (digest §4.2). */
export function parseGetTaskQuery(
  id: string,
  query: QueryParams,
  options?: HttpParseOptions,
): GetTaskRequest {
  const { object, violations } = fromQuery(query, options);
  return runSchema(requestSchemas(limitsOf(options)).GetTask, { ...object, id }, violations);
}

/** `GET /tasks?contextId=&status=&pageSize=&pageToken=&historyLength=&statusTimestampAfter=&includeArtifacts=`. */
export function parseListTasksQuery(query: QueryParams, options?: HttpParseOptions): ListTasksRequest {
  const { object, violations } = fromQuery(query, options);
  return runSchema(requestSchemas(limitsOf(options)).ListTasks, object, violations);
}

/** `GET /tasks/{taskId}/pushNotificationConfigs?pageSize=&pageToken=`. */
export function parseListPushConfigsQuery(
  taskId: string,
  query: QueryParams,
  options?: HttpParseOptions,
): ListTaskPushNotificationConfigsRequest {
  const { object, violations } = fromQuery(query, options);
  return runSchema(
    requestSchemas(limitsOf(options)).ListTaskPushNotificationConfigs,
    { ...object, taskId },
    violations,
  );
}

/**
 * Query → ProtoJSON-like object. Every field of these requests is a scalar, so a key given
 * several times must carry one value (identical repeats are tolerated); commas are not split,
 * because no field here is repeated. Empty values mean unset. Numbers and enums stay strings:
 * the validators accept numeric strings for int32 fields, as ProtoJSON does.
 */
function fromQuery(
  query: QueryParams,
  options: HttpParseOptions | undefined,
): { object: Record<string, unknown>; violations: FieldViolation[] } {
  const object: Record<string, unknown> = {};
  const violations: FieldViolation[] = [];
  for (const [key, raw] of Object.entries(query)) {
    const values = [...new Set(raw === undefined ? [] : typeof raw === 'string' ? [raw] : raw)];
    if (values.length > 1) {
      violations.push({ field: key, description: 'must be given at most once' });
      continue;
    }
    const value = values[0];
    if (value === undefined || value === '') continue;
    object[key] = BOOLEAN_FIELDS.has(key) ? queryBoolean(value) : value;
  }
  if (options?.tenant !== undefined) object['tenant'] = options.tenant;
  return { object, violations };
}

function queryBoolean(value: string): boolean | string {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}
