import type { TaskPushNotificationConfig } from '@switchyard/protocol';
import type { Db } from './db.ts';
import { addPushConfig, DEFAULT_MAX_PUSH_CONFIGS_PER_TASK } from './push-configs/add-push-config.ts';
import { deletePushConfig } from './push-configs/delete-push-config.ts';
import { getPushConfig } from './push-configs/get-push-config.ts';
import { listPushConfigs } from './push-configs/list-push-configs.ts';
import type { SecretBox } from './secret-box.ts';
import type { NewPushConfig, PushConfigStore } from './task-store.ts';

export interface PostgresPushConfigStoreOptions {
  db: Db;
  /** Seals token and credentials at rest (AES-256-GCM); reads return them redacted. */
  secrets: SecretBox;
  /**
   * Most configs one task may have; a create that would add one more is refused (README
   * "Limits"). Count. Default 10 (`DEFAULT_MAX_PUSH_CONFIGS_PER_TASK` says why).
   */
  maxConfigsPerTask?: number;
}

/** PushConfigStore on Postgres. The engine checks the caller's access to the task before calling. */
export class PostgresPushConfigStore implements PushConfigStore {
  readonly #db: Db;
  readonly #secrets: SecretBox;
  readonly maxConfigsPerTask: number;

  constructor(options: PostgresPushConfigStoreOptions) {
    this.#db = options.db;
    this.#secrets = options.secrets;
    this.maxConfigsPerTask = options.maxConfigsPerTask ?? DEFAULT_MAX_PUSH_CONFIGS_PER_TASK;
    if (!Number.isInteger(this.maxConfigsPerTask) || this.maxConfigsPerTask < 1)
      throw new RangeError(`maxConfigsPerTask must be a positive integer, got ${this.maxConfigsPerTask}`);
  }

  /** Throws when the task already has `maxConfigsPerTask` configs and this one would be new. */
  async createPushConfig(
    tenantId: string,
    taskId: string,
    config: NewPushConfig,
  ): Promise<TaskPushNotificationConfig> {
    const created = await this.tryCreatePushConfig(tenantId, taskId, config);
    if (!created)
      throw new Error(`task ${taskId} already has ${this.maxConfigsPerTask} push notification configs`);
    return created;
  }

  /**
   * Creates (or, same id or id-less same URL, updates) a config; null, and nothing changed, when it
   * would be new and the task already has `maxConfigsPerTask` (add-push-config.ts).
   */
  tryCreatePushConfig(
    tenantId: string,
    taskId: string,
    config: NewPushConfig,
  ): Promise<TaskPushNotificationConfig | null> {
    return addPushConfig(this.#db, this.#secrets, tenantId, taskId, config, this.maxConfigsPerTask);
  }
  /**
   * Registers a webhook named in a message unless the task already has it (same URL, and same id
   * when one is given), which is then returned untouched; null when it would be new and the task
   * already has `maxConfigsPerTask` (add-push-config.ts).
   */
  ensurePushConfig(
    tenantId: string,
    taskId: string,
    config: NewPushConfig,
  ): Promise<TaskPushNotificationConfig | null> {
    return addPushConfig(this.#db, this.#secrets, tenantId, taskId, config, this.maxConfigsPerTask, {
      keepExisting: true,
    });
  }
  getPushConfig(tenantId: string, taskId: string, id: string): Promise<TaskPushNotificationConfig | null> {
    return getPushConfig(this.#db, tenantId, taskId, id);
  }
  listPushConfigs(
    tenantId: string,
    taskId: string,
    page: { pageSize: number; pageToken?: string },
  ): Promise<{ configs: TaskPushNotificationConfig[]; nextPageToken: string }> {
    return listPushConfigs(this.#db, tenantId, taskId, page);
  }
  deletePushConfig(tenantId: string, taskId: string, id: string): Promise<boolean> {
    return deletePushConfig(this.#db, tenantId, taskId, id);
  }
}
