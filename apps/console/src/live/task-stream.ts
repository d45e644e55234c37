import { isTerminal } from '@switchyard/protocol';
import type { TaskRecord } from '@switchyard/store';
import type { ConsoleServices } from '../console-services.ts';
import { paths } from '../links.ts';
import { SHOWN_DELIVERIES } from '../timeline/load-timeline.ts';
import { renderDeliveries } from '../timeline/render-deliveries.ts';
import { renderEntry } from '../timeline/render-entry.ts';
import { renderTaskSummary } from '../timeline/render-task-summary.ts';
import { followTask } from './follow-task.ts';
import { sleep } from './sleep.ts';
import type { SseStream } from './sse-stream.ts';

export interface TaskStreamOptions {
  tenantId: string;
  taskId: string;
  afterSeq: number;
  afterPosition: number;
  csrf: string;
  /** The task as read before the stream opened (a task that does not exist is a 404 instead). */
  record: TaskRecord;
}

/**
 * The task page's live feed. Events:
 *  - `entry` {key, html}: a timeline line (id: = its event seq, so a reconnect resumes after it);
 *  - `task` {html, state, version}: the summary, whenever the row changed;
 *  - `deliveries` {html}: the push deliveries (counts and the latest rows), when they changed
 *    (polled: delivery outcomes append no task event);
 *  - `end`: the task is terminal, every event is shown and no delivery is pending;
 *  - `signed-out`: the session expired (live/end-with-session.ts).
 */
export async function streamTask(services: ConsoleServices, stream: SseStream, options: TaskStreamOptions) {
  const { tenantId, taskId, csrf } = options;
  const { signal } = stream;
  let record: TaskRecord = options.record;
  let lastSeq = options.afterSeq;
  let pendingDeliveries = true;
  const maybeEnd = () => {
    if (record && isTerminal(record.state) && lastSeq >= record.version && !pendingDeliveries) {
      stream.send('end', { state: record.state });
      stream.close();
    }
  };
  const ctx = { csrf, links: services.links };

  const follow = followTask(services, {
    tenantId,
    taskId,
    afterSeq: options.afterSeq,
    afterPosition: options.afterPosition,
    signal,
    onEntries: (entries) => {
      for (const e of entries) stream.send('entry', { key: e.key, html: renderEntry(e).value }, e.seq);
    },
    onRecord: (fresh, seq) => {
      record = fresh;
      lastSeq = seq;
      stream.send('task', {
        html: renderTaskSummary(fresh, ctx).value,
        state: fresh.state,
        version: fresh.version,
      });
      maybeEnd();
    },
  });

  const deliveries = (async () => {
    let shown = '';
    while (!signal.aborted) {
      const read = await services.reads.listTaskDeliveries(tenantId, taskId, SHOWN_DELIVERIES);
      pendingDeliveries = read.pending;
      const markup = renderDeliveries(read, csrf, paths.task(tenantId, taskId)).value;
      if (markup !== shown) {
        stream.send('deliveries', { html: markup });
        shown = markup;
      }
      maybeEnd();
      await sleep(services.config.CONSOLE_LIVE_POLL_MS, signal);
    }
  })();

  const fail = (err: unknown) => {
    if (!signal.aborted) services.log.warn({ err, tenantId, taskId }, 'console task stream failed');
    stream.close();
  };
  await Promise.all([follow.catch(fail), deliveries.catch(fail)]);
}
