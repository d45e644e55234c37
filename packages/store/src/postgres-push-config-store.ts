import type { TaskPushNotificationConfig } from '@switchyard/protocol';
import type { Db } from './db.ts';
import { createPushConfig } from './push-configs/create-push-config.ts';
import { deletePushConfig } from './push-configs/delete-push-config.ts';
import { getPushConfig } from './push-configs/get-push-config.ts';
import { listPushConfigs } from './push-configs/list-push-configs.ts';
import type { SecretBox } from './secret-box.ts';
import type { NewPushConfig, PushConfigStore } from './task-store.ts';

export interface PostgresPushConfigStoreOptions {
  db: Db;
  /** Seals token and credentials at rest (AES-256-GCM); reads return them redacted. */
  secrets: SecretBox;
}

/** PushConfigStore on Postgres. The engine checks the caller's access to the task before calling. */
export class PostgresPushConfigStore implements PushConfigStore {
  readonly #db: Db;
  readonly #secrets: SecretBox;

  constructor(options: PostgresPushConfigStoreOptions) {
    this.#db = options.db;
    this.#secrets = options.secrets;
  }

  createPushConfig(
    tenantId: string,
    taskId: string,
    config: NewPushConfig,
  ): Promise<TaskPushNotificationConfig> {
    return createPushConfig(this.#db, this.#secrets, tenantId, taskId, config);
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
