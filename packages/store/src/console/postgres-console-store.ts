import type { Db } from '../db.ts';
import { countConsoleTasks } from './count-console-tasks.ts';
import { countDeadLettersByTenant } from './count-dead-letters.ts';
import { countQueuedByTenant } from './count-queued-by-tenant.ts';
import type {
  CappedCount,
  ConsoleTaskFilter,
  ConsoleTaskPage,
  ConsoleTaskRow,
  ListConsoleTasksInput,
  StoredArtifactChunk,
  StoredMessage,
  TaskLocation,
  TenantDeadLetters,
  TenantQueued,
} from './console-types.ts';
import { endConsoleSession, isConsoleSessionEnded } from './ended-sessions.ts';
import { findTaskTenants } from './find-task-tenants.ts';
import { listArtifactChunks } from './list-artifact-chunks.ts';
import { listConsoleTasks } from './list-console-tasks.ts';
import { listContextTasks } from './list-context-tasks.ts';
import { listTaskDeliveries, type TaskDeliveries } from './list-task-deliveries.ts';
import { listTaskMessages } from './list-task-messages.ts';
import { pingDatabase } from './ping-database.ts';

/** The ops console's reads on Postgres: a thin façade, each method one query file. */
export class PostgresConsoleStore {
  readonly #db: Db;

  constructor({ db }: { db: Db }) {
    this.#db = db;
  }

  /** A console sign-out, kept until the session would have expired (ended-sessions.ts). */
  endSession(sid: string, expiresAt: Date): Promise<void> {
    return endConsoleSession(this.#db, sid, expiresAt);
  }
  isSessionEnded(sid: string): Promise<boolean> {
    return isConsoleSessionEnded(this.#db, sid);
  }
  listTasks(input: ListConsoleTasksInput): Promise<ConsoleTaskPage> {
    return listConsoleTasks(this.#db, input);
  }
  countTasks(filter: ConsoleTaskFilter, cap?: number): Promise<CappedCount> {
    return countConsoleTasks(this.#db, filter, cap);
  }
  listContextTasks(tenantId: string, contextId: string, limit: number): Promise<ConsoleTaskRow[]> {
    return listContextTasks(this.#db, tenantId, contextId, limit);
  }
  listTaskMessages(
    tenantId: string,
    taskId: string,
    options?: { afterPosition?: number; limit?: number },
  ): Promise<StoredMessage[]> {
    return listTaskMessages(this.#db, tenantId, taskId, options);
  }
  listArtifactChunks(tenantId: string, taskId: string, limit?: number): Promise<StoredArtifactChunk[]> {
    return listArtifactChunks(this.#db, tenantId, taskId, limit);
  }
  listTaskDeliveries(tenantId: string, taskId: string, limit: number, cap?: number): Promise<TaskDeliveries> {
    return listTaskDeliveries(this.#db, tenantId, taskId, limit, cap);
  }
  countDeadLettersByTenant(cap?: number): Promise<TenantDeadLetters[]> {
    return countDeadLettersByTenant(this.#db, cap);
  }
  countQueuedByTenant(cap?: number, tenantId?: string): Promise<TenantQueued[]> {
    return countQueuedByTenant(this.#db, cap, tenantId);
  }
  findTaskTenants(taskId: string): Promise<TaskLocation[]> {
    return findTaskTenants(this.#db, taskId);
  }
  ping(): Promise<boolean> {
    return pingDatabase(this.#db);
  }
}
