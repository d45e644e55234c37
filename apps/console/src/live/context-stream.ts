import type { ConsoleServices } from '../console-services.ts';
import { MAX_COLUMNS, renderColumn, renderColumnHeader } from '../contexts/context-page.ts';
import { loadTimeline } from '../timeline/load-timeline.ts';
import { renderEntry } from '../timeline/render-entry.ts';
import { followTask } from './follow-task.ts';
import { sleep } from './sleep.ts';
import type { SseStream } from './sse-stream.ts';

export interface ContextStreamOptions {
  tenantId: string;
  contextId: string;
  /** Task id → where its column stands (from the page). */
  positions: Map<string, { seq: number; position: number }>;
}

/**
 * The threads view's live feed: one task feed per column, merged into one stream (browsers allow
 * few connections per origin), plus a poll for tasks that join the context. Events: `entry`
 * {taskId, key, html}, `task` {taskId, html} (the column head), `column` {taskId, html}.
 */
export async function streamContext(
  services: ConsoleServices,
  stream: SseStream,
  options: ContextStreamOptions,
) {
  const { tenantId, contextId } = options;
  const { signal } = stream;
  const following = new Set<string>();
  const fail = (err: unknown) => {
    if (!signal.aborted) services.log.warn({ err, tenantId, contextId }, 'console context stream failed');
    stream.close();
  };
  const follow = (taskId: string, afterSeq: number, afterPosition: number) => {
    following.add(taskId);
    followTask(services, {
      tenantId,
      taskId,
      afterSeq,
      afterPosition,
      signal,
      onEntries: (entries) => {
        for (const e of entries) {
          stream.send('entry', { taskId, key: e.key, html: renderEntry(e, { compact: true }).value });
        }
      },
      onRecord: (record) => stream.send('task', { taskId, html: renderColumnHeader(record).value }),
    }).catch(fail);
  };
  for (const [taskId, p] of options.positions) {
    if (following.size < MAX_COLUMNS) follow(taskId, p.seq, p.position);
  }
  try {
    while (!signal.aborted) {
      await sleep(services.config.CONSOLE_LIVE_POLL_MS, signal);
      if (signal.aborted || following.size >= MAX_COLUMNS) continue;
      const tasks = await services.reads.listContextTasks(tenantId, contextId, MAX_COLUMNS);
      for (const task of tasks) {
        if (following.has(task.id) || following.size >= MAX_COLUMNS) continue;
        const timeline = await loadTimeline(services, tenantId, task.id);
        if (!timeline || signal.aborted) continue;
        stream.send('column', { taskId: task.id, html: renderColumn(timeline).value });
        follow(task.id, timeline.lastSeq, timeline.lastPosition);
      }
    }
  } catch (err) {
    fail(err);
  }
}

/** Parses `id.seq.position,…` from the page; ignores malformed parts. */
export function parsePositions(value: string | undefined): Map<string, { seq: number; position: number }> {
  const out = new Map<string, { seq: number; position: number }>();
  for (const part of (value ?? '').split(',')) {
    const m = /^([0-9a-f-]{36})\.(\d{1,9})\.(-1|\d{1,9})$/i.exec(part.trim());
    if (m?.[1] && m[2] && m[3]) out.set(m[1].toLowerCase(), { seq: Number(m[2]), position: Number(m[3]) });
  }
  return out;
}
