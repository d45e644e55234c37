import { html, type SafeHtml } from '../html/html.ts';
import { paths, type ConsoleLinks } from '../links.ts';
import type { TaskTimeline } from './load-timeline.ts';
import { renderDeliveries } from './render-deliveries.ts';
import { renderEntry } from './render-entry.ts';
import { renderTaskSummary } from './render-task-summary.ts';

/** Outcome notices after an action (a fixed set: no text from the URL reaches the page). */
export const NOTICES = {
  canceled: { kind: 'ok', text: 'Task canceled.' },
  'not-cancelable': { kind: 'warn', text: 'The task had already finished; nothing was canceled.' },
  replayed: { kind: 'ok', text: 'Delivery queued for another attempt.' },
  'not-dead': { kind: 'warn', text: 'That delivery is no longer dead-lettered; nothing was replayed.' },
  'run-cap-set': {
    kind: 'ok',
    text: 'Run cap saved. Workers apply it to runs that start within 5 s; runs parked under the old cap come back about 6 s from now.',
  },
  'tenant-disabled': {
    kind: 'ok',
    text: 'Tenant disabled: its API keys are refused on every gateway, and its tasks wait until it is enabled.',
  },
  'tenant-enabled': {
    kind: 'ok',
    text: 'Tenant enabled: its keys work again and its waiting tasks are dispatched.',
  },
  'tenant-disabled-unconfirmed': {
    kind: 'warn',
    text: 'Tenant disabled, but not every gateway confirmed in time (Redis away or a gateway stalled): its keys may work for up to 10 s more where they were cached.',
  },
  'tenant-enabled-unconfirmed': {
    kind: 'warn',
    text: 'Tenant enabled, but not every gateway confirmed in time: its keys may be refused for up to 10 s more where that was cached.',
  },
} as const;

export type NoticeCode = keyof typeof NOTICES;

export function renderNotice(code: string | undefined): SafeHtml | null {
  const notice = code !== undefined && code in NOTICES ? NOTICES[code as NoticeCode] : undefined;
  return notice ? html`<p class="notice notice-${notice.kind}" role="status">${notice.text}</p>` : null;
}

export function renderTaskPage(
  timeline: TaskTimeline,
  ctx: { csrf: string; links: ConsoleLinks; notice?: string | undefined },
): SafeHtml {
  const { record } = timeline;
  const stream = `${paths.task(record.tenantId, record.id)}/stream?after=${timeline.lastSeq}&msg=${timeline.lastPosition}`;
  return html`<nav class="crumbs" aria-label="Breadcrumb"><a href="${paths.tasks({ tenant: record.tenantId })}">Tasks of ${record.tenantId}</a> › <span>${record.id}</span></nav>
<div class="page-head">
  <h1>Task <code>${record.id}</code></h1>
  <span class="live" data-live-status data-state="connecting">Connecting…</span>
</div>
${renderNotice(ctx.notice)}
${renderTaskSummary(record, ctx)}
<section class="timeline-wrap" aria-labelledby="timeline-h">
  <h2 id="timeline-h">Timeline</h2>
  <ol class="timeline" data-timeline data-live-src="${stream}" aria-live="polite" aria-relevant="additions">
    ${timeline.entries.map((e) => renderEntry(e))}
  </ol>
</section>
${renderDeliveries(timeline.deliveries, ctx.csrf, paths.task(record.tenantId, record.id))}`;
}
