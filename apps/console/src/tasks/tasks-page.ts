import type {
  AgentRecord,
  CappedCount,
  ConsoleTaskPage,
  ConsoleTaskRow,
  TenantRecord,
} from '@switchyard/store';
import { messageText, shortId, stateBadge, stateLabel, timeTag } from '../html/format.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { SELECTABLE_STATES } from '../http/params.ts';
import { paths } from '../links.ts';
import { filterQuery, type TaskListQuery } from './task-filter-query.ts';

export interface TasksPageModel {
  tenants: TenantRecord[];
  agents: AgentRecord[];
  /** The query with its tenant resolved (the first tenant when none was given). */
  query: TaskListQuery & { filter: { tenantId: string } };
  page: ConsoleTaskPage;
  count: CappedCount;
}

const number = (n: number) => n.toLocaleString('en-US');

export function renderTasksPage(model: TasksPageModel): SafeHtml {
  const { filter } = model.query;
  const countText = `${number(model.count.count)}${model.count.capped ? '+' : ''} task${model.count.count === 1 && !model.count.capped ? '' : 's'} match`;
  return html`<div class="page-head"><h1>Tasks</h1></div>
${filterForm(model)}
<p class="result-count" data-testid="task-count" role="status">${countText}${model.query.cursor ? ' · later page' : ''}</p>
${
  model.page.tasks.length === 0
    ? html`<p class="empty">No tasks match these filters.</p>`
    : html`<div class="table-wrap"><table class="tasks" aria-label="Tasks, newest status first">
  <thead><tr>
    <th scope="col">Task</th><th scope="col">State</th><th scope="col">Agent</th><th scope="col">Status message</th>
    <th scope="col">Context</th><th scope="col">Owner</th><th scope="col">Status changed (UTC)</th><th scope="col">Attempts</th>
  </tr></thead>
  <tbody>${model.page.tasks.map((t) => taskRow(t, filter))}</tbody>
</table></div>`
}
<nav class="pager" aria-label="Pages">
  ${model.query.cursor ? html`<a href="${paths.tasks(filterQuery(filter))}">« First page</a>` : null}
  ${model.page.nextCursor ? html`<a rel="next" href="${paths.tasks({ ...filterQuery(filter), cursor: model.page.nextCursor, limit: model.query.limit === 50 ? undefined : String(model.query.limit) })}">Next page »</a>` : null}
</nav>`;
}

function filterForm({ tenants, agents, query }: TasksPageModel): SafeHtml {
  const f = query.filter;
  return html`<form class="filters" method="get" action="/tasks" aria-label="Filter tasks">
  <label>Tenant
    <select name="tenant" data-autosubmit>${tenants.map((t) => option(t.id, t.name === t.id ? t.id : `${t.id} — ${t.name}`, f.tenantId))}</select>
  </label>
  <label>Agent
    <select name="agent"><option value="">any agent</option>${agents.map((a) => option(a.id, a.id, f.agentId))}</select>
  </label>
  <label>State
    <select name="state"><option value="">any state</option>${SELECTABLE_STATES.map((s) => option(s, stateLabel(s), f.state))}</select>
  </label>
  <label>Context id
    <input name="context" value="${f.contextId ?? ''}" autocomplete="off" spellcheck="false">
  </label>
  <label>Search
    <input type="search" name="q" value="${f.search ?? ''}" placeholder="task id or context id" autocomplete="off" spellcheck="false">
  </label>
  <label class="check"><input type="checkbox" name="all" value="1"${f.visibility === 'all' ? html` checked` : null}> include Message replies and pending requests</label>
  <div class="filter-actions">
    <button type="submit">Apply filters</button>
    <a href="${paths.tasks({ tenant: f.tenantId })}">Reset</a>
  </div>
</form>`;
}

function option(value: string, label: string, selected: string | undefined): SafeHtml {
  return html`<option value="${value}"${value === selected ? html` selected` : null}>${label}</option>`;
}

function taskRow(t: ConsoleTaskRow, filter: TaskListQuery['filter']): SafeHtml {
  const status = messageText(t.statusMessage, 140);
  return html`<tr data-task-id="${t.id}">
    <td><a href="${paths.task(t.tenantId, t.id)}" title="${t.id}"><code>${shortId(t.id)}</code></a>${t.visibility === 'task' ? null : html` <span class="tag">${t.visibility === 'message' ? 'message reply' : 'pending'}</span>`}</td>
    <td>${stateBadge(t.state)}</td>
    <td><a href="${paths.tasks({ ...filterQuery(filter), agent: t.agentId, cursor: undefined })}">${t.agentId}</a></td>
    <td class="status-text">${status || (t.lastError ? html`<span class="error-text">${t.lastError}</span>` : html`<span class="muted">—</span>`)}</td>
    <td><a href="${paths.context(t.tenantId, t.contextId)}" title="${t.contextId}"><code>${shortId(t.contextId)}</code></a></td>
    <td>${t.owner}</td>
    <td>${timeTag(t.statusTimestamp)}</td>
    <td class="num">${t.attempts}</td>
  </tr>`;
}
