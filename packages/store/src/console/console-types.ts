import type { Message, TaskState } from '@switchyard/protocol';
import type { Visibility } from '../task-store.ts';

/**
 * Read models of the ops console (apps/console). The console is an admin over every tenant, but
 * each of its task queries is still scoped to one tenant, so every one is an index range that
 * leads with tenant_id (ARCHITECTURE.md §3 rule 6, §10).
 */

/** Filters of the console's task list; all optional but the tenant. */
export interface ConsoleTaskFilter {
  tenantId: string;
  agentId?: string;
  state?: TaskState;
  contextId?: string;
  /** A task id or a context id, matched exactly: a uuid matches either, anything else a context id. */
  search?: string;
  /** 'task' (default): visible A2A tasks only; 'all' adds Message replies and pending requests. */
  visibility?: 'task' | 'all';
}

export interface ListConsoleTasksInput extends ConsoleTaskFilter {
  /** Page size, 1..200. */
  limit: number;
  /** `nextCursor` of the previous page. Throws InvalidPageTokenError when not one we made. */
  cursor?: string;
}

/** One line of the task list: the row without its large JSON columns (reply, metadata). */
export interface ConsoleTaskRow {
  tenantId: string;
  id: string;
  contextId: string;
  agentId: string;
  owner: string;
  visibility: Visibility;
  state: TaskState;
  version: number;
  statusMessage: Message | null;
  statusTimestamp: Date;
  attempts: number;
  leaseOwner: string | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ConsoleTaskPage {
  /** Newest status first, id descending as the tie-breaker. */
  tasks: ConsoleTaskRow[];
  /** Null on the last page. */
  nextCursor: string | null;
}

/** A count that stopped at `cap`: `capped` means "at least `count`". */
export interface CappedCount {
  count: number;
  capped: boolean;
}

/** A history entry with the time it was stored (the wire Message has none). */
export interface StoredMessage {
  position: number;
  message: Message;
  createdAt: Date;
}

/** An artifact chunk as stored; `seq` is the task version (= event seq) that wrote it. */
export interface StoredArtifactChunk {
  seq: number;
  artifactId: string;
  append: boolean;
  lastChunk: boolean;
  name: string | null;
  description: string | null;
  parts: Message['parts'];
  createdAt: Date;
}

/** Where a task id exists, across tenants (the console's "go to task" box). */
export interface TaskLocation {
  tenantId: string;
  taskId: string;
  agentId: string;
  contextId: string;
  visibility: Visibility;
  state: TaskState;
}

/** A tenant's tasks waiting for a worker (countQueuedByTenant). */
export interface TenantQueued {
  tenantId: string;
  queued: CappedCount;
}

export interface TenantDeadLetters {
  tenantId: string;
  deadLetters: CappedCount;
}

/** A node of `EXPLAIN (FORMAT JSON)`: the fields the console's plan checks read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
  [field: string]: unknown;
}
