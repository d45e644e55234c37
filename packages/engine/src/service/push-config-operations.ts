import {
  invalidParams,
  taskNotFound,
  type A2AError,
  type ListTaskPushNotificationConfigsResponse,
  type TaskPushNotificationConfig,
} from '@switchyard/protocol';
import {
  InvalidPageTokenError,
  isConflict,
  isRedactedSecret,
  placeholderSecretField,
  REDACTED,
  RedactedSecretError,
  type Caller,
  type NewPushConfig,
} from '@switchyard/store';
import { checkWebhookUrl, UrlRefusedError } from '../push/url-policy.ts';
import { loadVisibleRecord } from './access.ts';
import type { ServiceDeps } from './service-deps.ts';

/**
 * A config refused because its task already has the most it may have (README "Limits"). The spec
 * names no error for this; InvalidParams, as for the other limits, with `field` naming the input.
 */
export function pushConfigLimitReached(taskId: string, max: number, field: string): A2AError {
  const why = `task ${taskId} already has ${max} push notification configs, the most one task may have`;
  return invalidParams(`${why}; delete one, or re-register an existing config id or URL`, [
    { field, description: `the task already has ${max} push notification configs (the limit)` },
  ]);
}

/**
 * A config field's name as the client sent it: under `prefix` (an inline config,
 * `configuration.taskPushNotificationConfig`), or alone when the config is the request itself
 * (CreateTaskPushNotificationConfig is flat: `url`, `token`, with `taskId` beside them).
 */
export function configField(prefix: string, name: string): string {
  return prefix === '' ? name : `${prefix}.${name}`;
}

/**
 * A config's secret given as the `********` reads show, where it cannot stand for the stored one
 * (store's RedactedSecretError: a new config, or its URL changed) is InvalidParams naming the
 * field under `prefix` (configField); any other error is given back as it is.
 */
export function placeholderRefused(err: unknown, prefix: string): unknown {
  if (!isRedactedSecret(err)) return err;
  return invalidParams(err.message, [{ field: configField(prefix, err.field), description: err.message }]);
}

/**
 * A new task's webhook has no stored config a `********` secret could stand for: refused as the
 * store refuses it on a new config of an existing task, instead of sending `Bearer ********`.
 */
export function refusePlaceholderOnNewTask(config: NewPushConfig, prefix: string): void {
  const field = placeholderSecretField(config);
  if (field) throw placeholderRefused(new RedactedSecretError(field), prefix);
}

/**
 * The create's answer, with the secrets the client has just sent in place of the `********` reads
 * show: the create response is the config the client made (digest §2.4), and a client that keeps
 * it must hold the token it will check webhooks against. Reads (Get, List) stay redacted (§8
 * "Secrets"). A secret sent as the placeholder stood for the stored one and stays redacted.
 */
function withOwnSecrets(
  created: TaskPushNotificationConfig,
  sent: NewPushConfig,
): TaskPushNotificationConfig {
  const view = { ...created };
  if (sent.token && sent.token !== REDACTED && view.token !== undefined) view.token = sent.token;
  const credentials = sent.authentication?.credentials;
  if (credentials && credentials !== REDACTED && view.authentication?.credentials !== undefined)
    view.authentication = { ...view.authentication, credentials };
  return view;
}

/** The four push config operations (digest §3, §8), scoped like every task operation. */
export class PushConfigOperations {
  private readonly deps: ServiceDeps;

  constructor(deps: ServiceDeps) {
    this.deps = deps;
  }

  /**
   * Validates a config (SSRF rules on the URL; a host that does not resolve yet is accepted and
   * checked at delivery) before anything is stored; a refusal names the
   * field under `prefix` (configField). A config from an A2A 0.3 caller is marked so that its
   * webhook bodies take the 0.3 shape.
   */
  async prepare(config: TaskPushNotificationConfig, prefix: string, caller: Caller): Promise<NewPushConfig> {
    try {
      await checkWebhookUrl(config.url, this.deps.urlPolicy, undefined, 'webhook', {
        acceptUnresolved: true,
      });
    } catch (err) {
      if (err instanceof UrlRefusedError)
        throw invalidParams(err.message, [{ field: configField(prefix, 'url'), description: err.message }]);
      throw err;
    }
    return {
      ...(config.id ? { id: config.id } : {}),
      url: config.url,
      ...(config.token ? { token: config.token } : {}),
      ...(config.authentication ? { authentication: config.authentication } : {}),
      ...(caller.protocolVersion === '0.3' ? { wireVersion: '0.3' as const } : {}),
    };
  }

  async create(
    caller: Caller,
    agentId: string,
    config: TaskPushNotificationConfig,
  ): Promise<TaskPushNotificationConfig> {
    const taskId = config.taskId ?? '';
    await loadVisibleRecord(this.deps.store, caller, agentId, taskId);
    // The request is the config itself (flat, digest §13.1): its fields have no prefix.
    const prepared = await this.prepare(config, '', caller);
    const { pushConfigs } = this.deps;
    const created = await pushConfigs.tryCreatePushConfig(caller.tenantId, taskId, prepared).catch((err) => {
      // The task was deleted (retention) between the visibility check and the create.
      if (isConflict(err)) throw taskNotFound(taskId);
      throw placeholderRefused(err, '');
    });
    if (!created) throw pushConfigLimitReached(taskId, pushConfigs.maxConfigsPerTask, 'taskId');
    return withOwnSecrets(created, prepared);
  }

  async get(
    caller: Caller,
    agentId: string,
    taskId: string,
    id: string,
  ): Promise<TaskPushNotificationConfig> {
    await loadVisibleRecord(this.deps.store, caller, agentId, taskId);
    const config = await this.deps.pushConfigs.getPushConfig(caller.tenantId, taskId, id);
    // The spec names TaskNotFound for a missing config as well (digest §8).
    if (!config) throw taskNotFound(taskId);
    return config;
  }

  async list(
    caller: Caller,
    agentId: string,
    taskId: string,
    page: { pageSize?: number | undefined; pageToken?: string | undefined },
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    await loadVisibleRecord(this.deps.store, caller, agentId, taskId);
    try {
      return await this.deps.pushConfigs.listPushConfigs(caller.tenantId, taskId, {
        pageSize: page.pageSize ?? 100,
        ...(page.pageToken ? { pageToken: page.pageToken } : {}),
      });
    } catch (err) {
      // A token this server did not issue is bad input, as in ListTasks (digest §7.4 rule 22).
      if (err instanceof InvalidPageTokenError) {
        throw invalidParams('pageToken is not a token this server issued', [
          { field: 'pageToken', description: 'invalid or expired' },
        ]);
      }
      throw err;
    }
  }

  /** Idempotent: deleting a config that is already gone succeeds (digest §8). */
  async delete(caller: Caller, agentId: string, taskId: string, id: string): Promise<void> {
    await loadVisibleRecord(this.deps.store, caller, agentId, taskId);
    await this.deps.pushConfigs.deletePushConfig(caller.tenantId, taskId, id);
  }
}
