import { formatAge } from '../html/format.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { paths } from '../links.ts';
import { deliveryRow } from '../timeline/render-deliveries.ts';
import { renderNotice } from '../timeline/task-page.ts';
import type { DeadLetterView, QueueOverview } from './queue-overview.ts';

const number = (n: number) => n.toLocaleString('en-US');

export function renderQueuesPage(
  overview: QueueOverview,
  deadLetters: DeadLetterView | null,
  ctx: { csrf: string; notice?: string | undefined; replayed?: number | undefined },
): SafeHtml {
  const d = overview.dispatch;
  return html`<div class="page-head"><h1>Queues</h1></div>
${renderNotice(ctx.notice)}
${ctx.replayed !== undefined ? html`<p class="notice notice-ok" role="status">${number(ctx.replayed)} dead letter${ctx.replayed === 1 ? '' : 's'} queued for another attempt.</p>` : null}
<section aria-labelledby="dispatch-h">
  <h2 id="dispatch-h">Task dispatch queue</h2>
  ${
    d === null
      ? html`<p class="notice" role="status" data-testid="dispatch-queue-unavailable">The dispatch queue's counts are not available: Redis is away or not answering. The rest of this page comes from Postgres.</p>`
      : html`<div class="table-wrap"><table data-testid="dispatch-queue">
    <thead><tr><th scope="col">Queue</th><th scope="col" class="num">Waiting</th><th scope="col" class="num">Active</th><th scope="col" class="num">Delayed</th><th scope="col" class="num">Failed</th><th scope="col" class="num">Oldest waiting</th></tr></thead>
    <tbody><tr>
      <th scope="row">tasks</th>
      <td class="num" data-metric="waiting">${number(d.waiting)}</td>
      <td class="num" data-metric="active">${number(d.active)}</td>
      <td class="num" data-metric="delayed">${number(d.delayed)}</td>
      <td class="num" data-metric="failed">${number(d.failed)}</td>
      <td class="num" data-metric="oldest">${d.waiting > 0 ? formatAge(d.oldestWaitingAgeMs) : '—'}</td>
    </tr></tbody>
  </table></div>`
  }
  <p class="muted small">Delayed jobs are retries waiting out their backoff, and runs parked behind their tenant's run cap (the Tenants view shows them per tenant). Failed jobs are dispatches the queue itself gave up on (the reaper re-dispatches their tasks from Postgres).</p>
</section>
<section aria-labelledby="backlog-h">
  <h2 id="backlog-h">Tasks waiting for a worker, per tenant</h2>
  ${
    overview.backlogs.length === 0
      ? html`<p class="muted">No tenants.</p>`
      : html`<div class="table-wrap"><table>
    <thead><tr><th scope="col">Tenant</th><th scope="col" class="num">Waiting (unleased, live)</th></tr></thead>
    <tbody>${overview.backlogs.map((b) => html`<tr><th scope="row"><a href="${paths.tasks({ tenant: b.tenantId, state: 'TASK_STATE_SUBMITTED' })}">${b.tenantId}</a></th><td class="num">${number(b.queued.count)}${b.queued.capped ? '+' : ''}</td></tr>`)}</tbody>
  </table></div>`
  }
</section>
<section aria-labelledby="outbox-h">
  <h2 id="outbox-h">Push outbox</h2>
  <div class="table-wrap"><table data-testid="push-outbox">
    <thead><tr><th scope="col" class="num">Pending deliveries</th><th scope="col" class="num">Oldest pending</th></tr></thead>
    <tbody><tr><td class="num" data-metric="pending">${number(overview.outbox.pending)}</td><td class="num">${overview.outbox.pending > 0 ? formatAge(overview.outbox.oldestPendingAgeMs) : '—'}</td></tr></tbody>
  </table></div>
</section>
<section aria-labelledby="dead-h" id="dead-letters">
  <h2 id="dead-h">Dead letters</h2>
  <div class="table-wrap"><table data-testid="dead-letter-counts">
    <thead><tr><th scope="col">Tenant</th><th scope="col" class="num">Dead letters</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${overview.deadLetters.map(
      (t) => html`<tr data-tenant="${t.tenantId}">
      <th scope="row">${t.tenantId}</th>
      <td class="num">${number(t.deadLetters.count)}${t.deadLetters.capped ? '+' : ''}</td>
      <td class="row-actions">${
        t.deadLetters.count > 0
          ? html`<a href="${paths.queues({ tenant: t.tenantId })}#dead-list">Show</a>
        <form method="post" action="/dead-letters/replay-all" data-confirm="Replay every dead letter of ${t.tenantId}?">
          <input type="hidden" name="_csrf" value="${ctx.csrf}">
          <input type="hidden" name="tenant" value="${t.tenantId}">
          <button type="submit">Replay all</button>
        </form>`
          : html`<span class="muted">none</span>`
      }</td>
    </tr>`,
    )}</tbody>
  </table></div>
  ${deadLetters ? deadLetterList(deadLetters, ctx.csrf) : null}
</section>`;
}

function deadLetterList(view: DeadLetterView, csrf: string): SafeHtml {
  const back = paths.queues({ tenant: view.tenantId, cursor: view.cursor });
  return html`<h3 id="dead-list">Dead letters of ${view.tenantId}, newest first</h3>
  ${
    view.page.deliveries.length === 0
      ? html`<p class="muted">None.</p>`
      : html`<div class="table-wrap"><table>
    <thead><tr><th scope="col">Task</th><th scope="col">Config</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th>
      <th scope="col">Created</th><th scope="col">Next attempt / delivered</th><th scope="col">HTTP</th><th scope="col">Last error</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${view.page.deliveries.map((d) => deliveryRow(d, csrf, back, true))}</tbody>
  </table></div>`
  }
  <nav class="pager" aria-label="Dead letter pages">
    ${view.cursor ? html`<a href="${paths.queues({ tenant: view.tenantId })}#dead-list">« First page</a>` : null}
    ${view.page.nextCursor ? html`<a rel="next" href="${paths.queues({ tenant: view.tenantId, cursor: view.page.nextCursor })}#dead-list">Next page »</a>` : null}
  </nav>`;
}
