import type { TaskRecord } from '@switchyard/store';
import { shortId, stateBadge, timeTag } from '../html/format.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { paths } from '../links.ts';
import type { TaskTimeline } from '../timeline/load-timeline.ts';
import { renderEntry } from '../timeline/render-entry.ts';

/** Most tasks shown side by side; a longer conversation shows its most recently active ones. */
export const MAX_COLUMNS = 12;

export function renderColumnHeader(record: TaskRecord): SafeHtml {
  return html`<header class="column-head" data-task-header data-state="${record.state}">
  <a href="${paths.task(record.tenantId, record.id)}" title="${record.id}"><code>${shortId(record.id)}</code></a>
  <span class="agent">${record.agentId}</span>
  ${stateBadge(record.state)}
  <span class="small muted">created ${timeTag(record.createdAt)}</span>
</header>`;
}

export function renderColumn(timeline: TaskTimeline): SafeHtml {
  const { record } = timeline;
  return html`<article class="column" data-task-id="${record.id}" aria-label="Task ${record.id}">
  ${renderColumnHeader(record)}
  <ol class="timeline compact" data-timeline aria-live="polite" aria-relevant="additions">
    ${timeline.entries.map((e) => renderEntry(e, { compact: true }))}
  </ol>
</article>`;
}

/** `taskId.seq.position` per column: where the live stream picks each column up. */
export function streamPositions(columns: readonly TaskTimeline[]): string {
  return columns.map((c) => `${c.record.id}.${c.lastSeq}.${c.lastPosition}`).join(',');
}

export function renderContextPage(
  tenantId: string,
  contextId: string,
  columns: readonly TaskTimeline[],
): SafeHtml {
  const stream = `${paths.context(tenantId, contextId)}/stream?v=${encodeURIComponent(streamPositions(columns))}`;
  return html`<nav class="crumbs" aria-label="Breadcrumb"><a href="${paths.tasks({ tenant: tenantId })}">Tasks of ${tenantId}</a> › <a href="${paths.tasks({ tenant: tenantId, context: contextId, all: '1' })}">context</a></nav>
<div class="page-head">
  <h1>Context <code>${contextId}</code></h1>
  <span class="live" data-live-status data-state="connecting">Connecting…</span>
</div>
<p class="muted">The tasks of one conversation side by side, oldest first${columns.length >= MAX_COLUMNS ? ` (the ${MAX_COLUMNS} most recently active)` : ''}. New tasks in the context appear as they start.</p>
<div class="columns" data-columns data-live-src="${stream}">
  ${columns.length === 0 ? html`<p class="empty" data-empty>No tasks in this context yet.</p>` : columns.map(renderColumn)}
</div>`;
}
