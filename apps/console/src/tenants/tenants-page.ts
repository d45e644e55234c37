import { timeTag } from '../html/format.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { paths } from '../links.ts';
import { renderNotice } from '../timeline/task-page.ts';
import { runCapLabel, runCapText } from './run-cap-text.ts';
import type { TenantView } from './tenant-overview.ts';

const number = (n: number) => n.toLocaleString('en-US');

export function renderTenantsPage(
  tenants: TenantView[],
  ctx: { csrf: string; notice?: string | undefined },
): SafeHtml {
  const redisAway = tenants.length > 0 && tenants.every((t) => t.runs === null);
  return html`<div class="page-head"><h1>Tenants</h1></div>
${renderNotice(ctx.notice)}
${redisAway ? html`<p class="notice" role="status" data-testid="run-counts-unavailable">Runs going on and parked are not available: Redis is away or not answering. The rest of this page comes from Postgres.</p>` : null}
${
  tenants.length === 0
    ? html`<p class="muted">No tenants.</p>`
    : html`<div class="table-wrap"><table data-testid="tenants">
  <thead><tr><th scope="col">Tenant</th><th scope="col">Name</th><th scope="col">Status</th><th scope="col" class="num">Waiting</th><th scope="col" class="num">Running (capped)</th><th scope="col" class="num">Parked</th><th scope="col">Run cap</th></tr></thead>
  <tbody>${tenants.map((t) => tenantRow(t, ctx.csrf))}</tbody>
</table></div>`
}
<p class="muted small">A run cap is the most runs of one tenant at once across the worker fleet: the rest of its tasks wait, parked, and other tenants' tasks go past them. Write <code>default</code> to follow the workers' <code>TENANT_MAX_RUNNING</code>, <code>none</code> for no cap, or a number. Workers apply a change to runs that start within 5 s, and the runs parked under the old cap come back about 6 s after it; runs going on keep their slots. Running counts only runs under a cap (an uncapped tenant's runs hold no slot); waiting counts live tasks no worker has leased.</p>`;
}

function tenantRow(t: TenantView, csrf: string): SafeHtml {
  const capId = `cap-${t.id}`;
  return html`<tr data-tenant="${t.id}">
    <th scope="row"><a href="${paths.tasks({ tenant: t.id })}">${t.id}</a></th>
    <td>${t.name}</td>
    <td><div class="row-actions">${t.disabledAt ? html`<span class="tag" data-status="disabled">disabled</span> <span class="muted small">since ${timeTag(t.disabledAt)}</span>` : html`<span data-status="enabled">enabled</span>`}
      ${statusForm(t, csrf)}</div></td>
    <td class="num" data-metric="waiting">${number(t.queued.count)}${t.queued.capped ? '+' : ''}</td>
    <td class="num" data-metric="running">${t.runs ? number(t.runs.running) : '—'}</td>
    <td class="num" data-metric="parked">${t.runs ? number(t.runs.parked) : '—'}</td>
    <td><form method="post" action="${paths.tenantRunCap(t.id)}" class="row-actions">
      <input type="hidden" name="_csrf" value="${csrf}">
      <label class="visually-hidden" for="${capId}">Run cap of ${t.id}</label>
      <input id="${capId}" name="cap" value="${runCapText(t.maxRunning)}" size="9" required pattern="[Dd][Ee][Ff][Aa][Uu][Ll][Tt]|[Nn][Oo][Nn][Ee]|1000000|[1-9][0-9]{0,5}" title="default, none or a number of runs">
      <button type="submit">Save</button>
      <span class="muted small" data-run-cap>${runCapLabel(t.maxRunning)}</span>
    </form></td>
  </tr>`;
}

/** Disable (with a confirmation: it refuses the tenant's keys at once) or enable again. */
function statusForm(t: TenantView, csrf: string): SafeHtml {
  const token = html`<input type="hidden" name="_csrf" value="${csrf}">`;
  return t.disabledAt
    ? html`<form method="post" action="${paths.tenantStatus(t.id, 'enable')}">${token}<button type="submit">Enable</button></form>`
    : html`<form method="post" action="${paths.tenantStatus(t.id, 'disable')}" data-confirm="Disable ${t.id}? Its API keys are refused at once and its tasks wait until it is enabled.">${token}<button type="submit" class="danger">Disable</button></form>`;
}
