import type { Task } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import type { Caller, GetTaskOptions, TaskRecord } from '../task-store.ts';
import { loadTaskViews } from './load-task-views.ts';
import { DEFAULT_MAX_PAGE_BYTES } from './page-budget.ts';
import { readTaskView } from './read-task-view.ts';
import { isTaskId, toTaskRecord } from './task-row.ts';

/** The raw row, whatever its visibility; scoped to the tenant only (the engine's own reads). */
export async function getTaskRecord(db: Db, tenantId: string, taskId: string): Promise<TaskRecord | null> {
  if (!isTaskId(taskId)) return null;
  const row = await db
    .selectFrom('tasks')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', taskId)
    .executeTakeFirst();
  return row ? toTaskRecord(row) : null;
}

/**
 * GetTask: the task only if the caller may see it (digest §7.4 rule 19). A Message reply or a
 * still-pending request is not a Task, and another principal's task does not exist for the caller
 * (ARCHITECTURE.md §3 rule 6), so all of them read as null.
 */
export async function getTask(
  db: Db,
  caller: Caller,
  taskId: string,
  options: GetTaskOptions = {},
): Promise<Task | null> {
  return readTaskView(db, caller.tenantId, taskId, { ...options, caller });
}

/** The wire Task for a row regardless of visibility: the answer to a write the caller just made. */
export async function loadTaskView(
  db: Db,
  tenantId: string,
  taskId: string,
  options: GetTaskOptions = {},
): Promise<Task | null> {
  return readTaskView(db, tenantId, taskId, options);
}

/**
 * The wire Task for a row already read (a SendMessage or CancelTask answer). Its history is held
 * to the budget of a task view (page-budget.ts) by itself: the artifacts load beside it, in
 * parallel, so they cannot be counted first as readTaskView counts them.
 */
export async function viewOf(db: Db, task: TaskRecord, options: GetTaskOptions): Promise<Task> {
  const [view] = await loadTaskViews(db, task.tenantId, [task], {
    historyLength: options.historyLength,
    historyMaxBytes: DEFAULT_MAX_PAGE_BYTES,
    includeArtifacts: options.includeArtifacts ?? true,
    keepEmptyArtifacts: false,
  });
  if (!view) throw new Error('unreachable: one task in, one view out');
  return view;
}
