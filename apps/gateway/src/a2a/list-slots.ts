import { resourceExhausted, unavailable } from '@switchyard/protocol';

/** ListTasks calls one tenant may have running at once on one gateway process. */
export const LIST_TASKS_PER_TENANT = 4;
/** ListTasks calls one tenant may have waiting for a place, beyond those; more are refused. */
export const LIST_TASKS_WAITING_PER_TENANT = 256;

interface TenantSlots {
  running: number;
  waiting: Array<() => void>;
}

/**
 * ListTasks calls running, per tenant. A call past the first page counts every match for
 * `totalSize`, which reads all of a tenant's matching tasks (about 100 ms for 300,000), and holds
 * one of the Postgres connections every tenant's requests share while it does. Only the request
 * rate limited them: sixteen at once from one tenant, far under its rate, held the pool and slowed
 * every other tenant's GetTask from 5 ms to over a second. Now a tenant's calls past the limit wait
 * here, in order, holding no connection; past the waiting limit they are refused with 429.
 */
export class ListTaskSlots {
  readonly #perTenant: number;
  readonly #waitingPerTenant: number;
  readonly #tenants = new Map<string, TenantSlots>();

  constructor(perTenant = LIST_TASKS_PER_TENANT, waitingPerTenant = LIST_TASKS_WAITING_PER_TENANT) {
    this.#perTenant = perTenant;
    this.#waitingPerTenant = waitingPerTenant;
  }

  /**
   * A place for one call, once one is free; the function gives it back. Throws ResourceExhausted
   * when too many wait already; rejects with Unavailable if the call is aborted first (its client
   * left, or the gateway drains: a 503 with Retry-After, not an internal error).
   */
  async take(tenantId: string, signal?: AbortSignal): Promise<() => void> {
    const slots = this.#tenants.get(tenantId) ?? { running: 0, waiting: [] };
    this.#tenants.set(tenantId, slots);
    if (slots.running < this.#perTenant) slots.running++;
    else {
      if (slots.waiting.length >= this.#waitingPerTenant)
        throw resourceExhausted(1, 'Too many ListTasks calls at once for this tenant; retry shortly');
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          signal?.removeEventListener('abort', leave);
          resolve();
        };
        const leave = () => {
          const at = slots.waiting.indexOf(go);
          if (at >= 0) slots.waiting.splice(at, 1);
          this.#forgetIfIdle(tenantId, slots);
          // The client left, or the gateway is draining: either way, come back later.
          reject(unavailable(1));
        };
        if (signal?.aborted) return leave();
        signal?.addEventListener('abort', leave, { once: true });
        slots.waiting.push(go);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // A waiter takes the place over; the running count stays.
      const next = slots.waiting.shift();
      if (next) return next();
      slots.running--;
      this.#forgetIfIdle(tenantId, slots);
    };
  }

  #forgetIfIdle(tenantId: string, slots: TenantSlots): void {
    if (slots.running === 0 && slots.waiting.length === 0) this.#tenants.delete(tenantId);
  }
}
