import type { TaskState } from '../task-state.ts';
import type { JsonObject, Timestamp } from './common.ts';
import type { Message } from './message.ts';
import type { TaskPushNotificationConfig } from './push-config.ts';
import type { Task } from './task.ts';

/** SendMessageConfiguration (digest §2.4, §7.2). */
export interface SendMessageConfiguration {
  /** Media types the client accepts; agents SHOULD tailor their output to them. */
  acceptedOutputModes?: string[];
  /** Registers a webhook for the new task; leave its `taskId` empty. */
  taskPushNotificationConfig?: TaskPushNotificationConfig;
  /** Trims the returned task's history (§7.3). Integer ≥ 0. */
  historyLength?: number;
  /** Default false = blocking until terminal or interrupted (§7.2 rule 12). */
  returnImmediately?: boolean;
}

/** SendMessageRequest: params of SendMessage and SendStreamingMessage. */
export interface SendMessageRequest {
  tenant?: string;
  message: Message;
  configuration?: SendMessageConfiguration;
  metadata?: JsonObject;
}

export interface GetTaskRequest {
  tenant?: string;
  id: string;
  /** Integer ≥ 0 (§7.3). */
  historyLength?: number;
}

export interface ListTasksRequest {
  tenant?: string;
  contextId?: string;
  /** Filter; absent (validators drop TASK_STATE_UNSPECIFIED) means no filter (§7.4 rule 23). */
  status?: TaskState;
  /** 1..100, default 50 (§7.4 rule 22). */
  pageSize?: number;
  pageToken?: string;
  /** Applied to each task (§7.4 rule 25). */
  historyLength?: number;
  /** Keep tasks whose `status.timestamp` ≥ this value; normalized to `YYYY-MM-DDTHH:mm:ss.sssZ`. */
  statusTimestampAfter?: Timestamp;
  /** Default false: the `artifacts` key is then absent from every task (§7.4 rule 24). */
  includeArtifacts?: boolean;
}

export interface ListTasksResponse {
  tasks: Task[];
  /** Always present; `""` on the last page. */
  nextPageToken: string;
  /** The page size actually used. */
  pageSize: number;
  /** Number of matching tasks before pagination. */
  totalSize: number;
}

export interface CancelTaskRequest {
  tenant?: string;
  id: string;
  metadata?: JsonObject;
}

export interface SubscribeToTaskRequest {
  tenant?: string;
  id: string;
}

export interface GetExtendedAgentCardRequest {
  tenant?: string;
}
