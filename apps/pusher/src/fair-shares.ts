import type { ClaimDeliveriesInput, ClaimedDelivery } from '@switchyard/store';

export interface FairShareLimits {
  /** Most deliveries of one tenant in flight at once in this process. */
  perTenant: number;
  /** Most deliveries to one receiver host (host:port) in flight at once in this process. */
  perHost: number;
}

/**
 * This process's deliveries in flight, counted per tenant and per receiver host against the caps
 * that keep one tenant, or one slow receiver, from holding every slot: a webhook that takes its
 * whole timeout to answer holds a slot for PUSH_TIMEOUT_MS, and without a cap one tenant's backlog
 * to it filled all of them while every other tenant waited.
 *
 * The claim asks only for what fits (claimInput): tenants up to their share, receivers up to their
 * room, all tenants' deliveries to one receiver counted together, tenants in turn after the last
 * one served. admit() is the check of record; a delivery it refuses is handed back at once.
 */
export class FairShares {
  readonly #limits: FairShareLimits;
  readonly #byTenant = new Map<string, number>();
  readonly #byHost = new Map<string, number>();
  /** Round-robin cursor: the tenant of the last delivery the previous claim returned. */
  #lastTenant = '';

  constructor(limits: FairShareLimits) {
    this.#limits = limits;
  }

  /** The fairness part of the next claim. */
  claimInput(): Pick<ClaimDeliveriesInput, 'afterTenant' | 'shares'> {
    return {
      afterTenant: this.#lastTenant,
      shares: {
        perTenant: this.#limits.perTenant,
        inFlightByTenant: new Map(this.#byTenant),
        perHost: this.#limits.perHost,
        inFlightByHost: new Map(this.#byHost),
      },
    };
  }

  /** Whether the host or tenant of any of these is now at its cap (after admit()). */
  anyAtCap(batch: readonly ClaimedDelivery[]): boolean {
    return batch.some(
      (d) =>
        (this.#byHost.get(d.receiverHost) ?? 0) >= this.#limits.perHost ||
        (this.#byTenant.get(d.tenantId) ?? 0) >= this.#limits.perTenant,
    );
  }

  /** Notes where a claim ended (its rows come in visiting order), so the next starts after it. */
  claimed(batch: readonly ClaimedDelivery[]): void {
    const last = batch.at(-1);
    if (last) this.#lastTenant = last.tenantId;
  }

  /** Takes a slot for the delivery; false when its tenant or its receiver host is at its cap. */
  admit(delivery: ClaimedDelivery): boolean {
    const tenant = this.#byTenant.get(delivery.tenantId) ?? 0;
    const host = this.#byHost.get(delivery.receiverHost) ?? 0;
    if (tenant >= this.#limits.perTenant || host >= this.#limits.perHost) return false;
    this.#byTenant.set(delivery.tenantId, tenant + 1);
    this.#byHost.set(delivery.receiverHost, host + 1);
    return true;
  }

  /** Frees the slot admit() took, once the send is over. */
  finished(delivery: ClaimedDelivery): void {
    decrement(this.#byTenant, delivery.tenantId);
    decrement(this.#byHost, delivery.receiverHost);
  }
}

/** Drops a key at zero, so the maps hold only tenants and hosts with sends in flight. */
function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 0) - 1;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
