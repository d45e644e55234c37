import { isTerminal } from '@switchyard/protocol';
import type { TaskRecord } from '@switchyard/store';
import { formatAge, stateBadge, timeTag } from '../html/format.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { paths, type ConsoleLinks } from '../links.ts';

export interface SummaryContext {
  csrf: string;
  links: ConsoleLinks;
  now?: Date;
}

/** Whether the console offers Cancel: the engine cancels visible, non-terminal tasks only. */
export function cancelable(record: Pick<TaskRecord, 'state' | 'visibility'>): boolean {
  return record.visibility === 'task' && !isTerminal(record.state);
}

/** The task's facts and actions; replaced whole when the live stream reports a change. */
export function renderTaskSummary(record: TaskRecord, ctx: SummaryContext): SafeHtml {
  const now = ctx.now ?? new Date();
  // A canceled task keeps its run's lease until the run has stopped its agent (or, should the run
  // never hear the cancel, until a worker has told the agent instead).
  const kept = isTerminal(record.state)
    ? html` <span class="muted">(kept until the agent is told of the cancel)</span>`
    : html``;
  const lease =
    record.leaseOwner && record.leaseExpiresAt
      ? html`<code>${record.leaseOwner}</code> until ${timeTag(record.leaseExpiresAt)}${kept}`
      : html`<span class="muted">none</span>`;
  return html`<section class="summary" data-task-header data-state="${record.state}" aria-label="Task summary">
  <dl class="facts">
    <div><dt>State</dt><dd data-testid="task-state">${stateBadge(record.state)}</dd></div>
    <div><dt>Tenant</dt><dd><a href="${paths.tasks({ tenant: record.tenantId })}">${record.tenantId}</a></dd></div>
    <div><dt>Agent</dt><dd><a href="${paths.tasks({ tenant: record.tenantId, agent: record.agentId })}">${record.agentId}</a>
      <a class="small" href="${ctx.links.agentCard(record.tenantId, record.agentId)}" target="_blank" rel="noopener noreferrer">card ↗</a></dd></div>
    <div><dt>Context</dt><dd><a href="${paths.context(record.tenantId, record.contextId)}" title="Tasks of this context side by side"><code>${record.contextId}</code></a></dd></div>
    <div><dt>Owner</dt><dd>${record.owner}</dd></div>
    <div><dt>Visibility</dt><dd>${record.visibility}</dd></div>
    <div><dt>Version</dt><dd>${record.version}</dd></div>
    <div><dt>Attempts</dt><dd>${record.attempts}</dd></div>
    <div><dt>Lease</dt><dd>${lease}</dd></div>
    <div><dt>Created</dt><dd>${timeTag(record.createdAt)} <span class="muted">(${formatAge(now.getTime() - record.createdAt.getTime())} ago)</span></dd></div>
    <div><dt>Status changed</dt><dd>${timeTag(record.statusTimestamp)}</dd></div>
    ${record.lastError ? html`<div class="wide"><dt>Last error</dt><dd><pre class="error-text">${record.lastError}</pre></dd></div>` : null}
  </dl>
  <div class="actions">
    <a class="button" href="${ctx.links.trace(record.id)}" target="_blank" rel="noopener noreferrer">Open trace ↗</a>
    ${
      cancelable(record)
        ? html`<form method="post" action="${paths.task(record.tenantId, record.id)}/cancel" data-confirm="Cancel this task? The agent is stopped and the task ends as canceled.">
      <input type="hidden" name="_csrf" value="${ctx.csrf}">
      <button type="submit" class="danger">Cancel task</button>
    </form>`
        : null
    }
  </div>
</section>`;
}
