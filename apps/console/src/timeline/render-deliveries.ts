import { TASK_DELIVERY_COUNT_CAP, type DeliveryRecord, type TaskDeliveries } from '@switchyard/store';
import { timeTag } from '../html/format.ts';
import { html, type SafeHtml } from '../html/html.ts';

const number = (n: number) => n.toLocaleString('en-US');

/**
 * A task's push deliveries (one row per config and event): how many in each status, and the latest
 * rows, of which dead ones can be replayed. A task may have hundreds of thousands (many small
 * chunks to a few webhooks): the table stays one screen, and its live update a few kilobytes.
 */
export function renderDeliveries(deliveries: TaskDeliveries, csrf: string, back: string): SafeHtml {
  const { latest, counts } = deliveries;
  const total = counts ? counts.pending + counts.delivered + counts.dead : null;
  const summary = counts
    ? `${number(counts.pending)} pending · ${number(counts.delivered)} delivered · ${number(counts.dead)} dead`
    : `More than ${number(TASK_DELIVERY_COUNT_CAP)} deliveries${deliveries.pending ? ', some pending' : ''}`;
  const partial = total === null || total > latest.length;
  return html`<section class="deliveries" data-deliveries aria-labelledby="deliveries-h">
  <h2 id="deliveries-h">Push deliveries <span class="count">${total === null ? `${number(TASK_DELIVERY_COUNT_CAP)}+` : number(total)}</span></h2>
  ${
    latest.length === 0
      ? html`<p class="muted">No push notification configs on this task, or nothing to deliver yet.</p>`
      : html`<p class="muted small" data-testid="delivery-summary">${summary}${partial ? `; the latest ${number(latest.length)} are listed (every dead letter of the tenant is on the Queues page)` : ''}.</p>
  <div class="table-wrap"><table>
    <thead><tr><th scope="col">Config</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th>
      <th scope="col">Created</th><th scope="col">Next attempt / delivered</th><th scope="col">HTTP</th><th scope="col">Last error</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${latest.map((d) => deliveryRow(d, csrf, back))}</tbody>
  </table></div>`
  }
</section>`;
}

export function deliveryRow(d: DeliveryRecord, csrf: string, back: string, showTask = false): SafeHtml {
  const when =
    d.status === 'delivered' && d.deliveredAt
      ? timeTag(d.deliveredAt)
      : d.status === 'pending'
        ? timeTag(d.nextAttemptAt)
        : html`<span class="muted">—</span>`;
  return html`<tr data-delivery="${d.deliveryId}">
    ${showTask ? html`<td><a href="/tasks/${encodeURIComponent(d.tenantId)}/${d.taskId}"><code>${d.taskId.slice(0, 8)}</code></a></td>` : null}
    <td><code>${d.configId}</code></td>
    <td>#${d.seq}</td>
    <td><span class="badge delivery-${d.status}">${d.status}</span></td>
    <td>${d.attempts}</td>
    <td>${timeTag(d.createdAt)}</td>
    <td>${when}</td>
    <td>${d.lastStatus ?? ''}</td>
    <td class="error-cell">${d.lastError ?? ''}</td>
    <td>${
      d.status === 'dead'
        ? html`<form method="post" action="/dead-letters/replay">
      <input type="hidden" name="_csrf" value="${csrf}">
      <input type="hidden" name="tenant" value="${d.tenantId}">
      <input type="hidden" name="taskId" value="${d.taskId}">
      <input type="hidden" name="configId" value="${d.configId}">
      <input type="hidden" name="seq" value="${d.seq}">
      <input type="hidden" name="back" value="${back}">
      <button type="submit">Retry</button>
    </form>`
        : null
    }</td>
  </tr>`;
}
