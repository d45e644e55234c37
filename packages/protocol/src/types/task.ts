import type { TaskState } from '../task-state.ts';
import type { JsonObject, Timestamp } from './common.ts';
import type { Message, Part } from './message.ts';

/** TaskStatus (digest §2.1). */
export interface TaskStatus {
  /** REQUIRED. Never UNSPECIFIED for a real task. */
  state: TaskState;
  /** A status message from the agent. */
  message?: Message;
  /** Used for ListTasks ordering and filtering, so always set it. */
  timestamp?: Timestamp;
}

/** Artifact (digest §2.2). */
export interface Artifact {
  /** REQUIRED, unique within the task. */
  artifactId: string;
  name?: string;
  description?: string;
  /** REQUIRED, at least one. */
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
}

/** Task (digest §2.1). */
export interface Task {
  /** REQUIRED, server-generated. */
  id: string;
  /** Optional in the proto, but always set it: events require it (§12 #18). */
  contextId?: string;
  /** REQUIRED. */
  status: TaskStatus;
  /** ListTasks omits the key entirely unless `includeArtifacts=true` (§7.4 rule 24). */
  artifacts?: Artifact[];
  /** Trimmed per `historyLength` (§7.3); see `trimHistory`. */
  history?: Message[];
  metadata?: JsonObject;
}
