import { TaskState, type Part } from '@switchyard/protocol';
import type { Caller, ListTasksInput, ListTasksPage } from '../src/task-store.ts';
import { createdTask, newTask, statusEvent, userMessage, type TaskTestEnv } from './task-fixtures.ts';

/**
 * Text of `bytes` characters that starts with `mark`, so a test can tell which message it is.
 * A message holding it renders to about 90 bytes more (its id, role and keys).
 */
export function text(bytes: number, mark = ''): string {
  return mark + 'x'.repeat(bytes - mark.length);
}

export interface SizedTaskSpec {
  /** Its history, oldest first: one user message per entry (texts, or any parts). */
  history: Array<string | Part[]>;
  /** One artifact per entry, `a0`, `a1`…, each a single text part. */
  artifacts?: string[];
}

/** A task of alice's (agent echo) with exactly this history and these artifacts. */
export async function sizedTask(env: TaskTestEnv, tenantId: string, spec: SizedTaskSpec): Promise<string> {
  const messages = spec.history.map((entry) =>
    typeof entry === 'string' ? userMessage(entry) : userMessage('', { parts: entry }),
  );
  const [first, ...rest] = messages;
  const task = await createdTask(env.store, newTask(tenantId, first ? { message: first } : {}));
  let version = task.version;
  const change = async (extra: object) => {
    const changed = await env.store.changeTask({
      tenantId,
      taskId: task.id,
      expectedVersion: version,
      patch: {},
      event: statusEvent(task, TaskState.SUBMITTED),
      ...extra,
    });
    version = changed.version;
  };
  if (rest.length > 0) await change({ appendMessages: rest });
  for (const [index, artifact] of (spec.artifacts ?? []).entries()) {
    await change({
      artifactChunk: { artifactId: `a${index}`, append: false, lastChunk: true, parts: [{ text: artifact }] },
    });
  }
  return task.id;
}

export interface PagedThrough {
  /** The ids of each page, in order. */
  pages: string[][];
  /** Every totalSize and pageSize the pages reported. */
  totals: Set<number>;
  pageSizes: Set<number>;
}

/** Follows nextPageToken from the first page to the last ('' token). */
export async function pageThrough(
  env: TaskTestEnv,
  caller: Caller,
  input: Partial<ListTasksInput>,
  onPage: (page: ListTasksPage) => void = () => {},
): Promise<PagedThrough> {
  const out: PagedThrough = { pages: [], totals: new Set(), pageSizes: new Set() };
  let pageToken: string | undefined;
  do {
    const page = await env.store.listTasks({
      caller,
      agentId: 'echo',
      pageSize: 50,
      includeArtifacts: false,
      ...input,
      ...(pageToken ? { pageToken } : {}),
    });
    onPage(page);
    out.pages.push(page.tasks.map((t) => t.id));
    out.totals.add(page.totalSize);
    out.pageSizes.add(page.pageSize);
    pageToken = page.nextPageToken || undefined;
  } while (pageToken);
  return out;
}
