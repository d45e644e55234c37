import type { Task } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import type { TaskRecord } from '../task-store.ts';
import { composeTaskView } from './compose-task-view.ts';
import { loadArtifacts } from './load-artifacts.ts';
import { loadHistories } from './load-history.ts';

export interface TaskViewOptions {
  historyLength?: number;
  /** Each task keeps only its newest messages that fit in this many bytes (page-budget.ts). */
  historyMaxBytes?: number;
  includeArtifacts: boolean;
  /**
   * ListTasks with includeArtifacts=true shows `artifacts: []` (digest §7.4 rule 24: the key's
   * presence answers the flag); GetTask follows plain ProtoJSON and omits the empty list.
   */
  keepEmptyArtifacts: boolean;
}

/** Wire Tasks for task rows of one tenant: two batch queries for any number of tasks. */
export async function loadTaskViews(
  db: Db,
  tenantId: string,
  tasks: readonly TaskRecord[],
  options: TaskViewOptions,
): Promise<Task[]> {
  const ids = tasks.map((t) => t.id);
  const [histories, artifacts] = await Promise.all([
    loadHistories(db, tenantId, ids, options.historyLength, options.historyMaxBytes),
    options.includeArtifacts ? loadArtifacts(db, tenantId, ids) : undefined,
  ]);
  return tasks.map((task) => {
    let list = artifacts?.get(task.id) ?? (options.includeArtifacts ? [] : undefined);
    if (list?.length === 0 && !options.keepEmptyArtifacts) list = undefined;
    return composeTaskView(task, { history: histories.get(task.id), artifacts: list });
  });
}
