import { resourceExhausted } from '@switchyard/protocol';

export interface BlockingWaitLimits {
  /**
   * Blocking SendMessage calls waiting at once on this gateway process, all tenants together:
   * each holds a connection and reads the store on its poll, so past some number they starve the
   * Postgres pool for every other request (503s) rather than being refused (429). Default: none.
   */
  perGateway?: number;
  /** Blocking SendMessage calls one tenant has waiting at once on this gateway process. */
  perTenant: number;
  /** The same for one principal (an API key's or a JWT's subject) of a tenant. */
  perPrincipal: number;
}

/**
 * Blocking SendMessage calls waiting for their task, counted per tenant and per principal, as open
 * streams are (StreamRegistry). Each holds a connection for up to the blocking timeout and reads
 * the store on its poll, and only the request rate limited them: at 1,000 requests a second a
 * tenant could keep 30,000 waiting, past the gateway's connection limit, so other tenants' sockets
 * were refused. Past a limit a send is refused with 429 + Retry-After before anything is created.
 */
export class BlockingWaits {
  readonly #limits: BlockingWaitLimits;
  readonly #perTenant = new Map<string, number>();
  readonly #perPrincipal = new Map<string, number>();
  #total = 0;

  constructor(limits: BlockingWaitLimits) {
    this.#limits = limits;
  }

  /** Takes a place for one blocking wait, or throws ResourceExhausted; the function gives it back. */
  take(tenantId: string, principal: string): () => void {
    const principalKey = JSON.stringify([tenantId, principal]);
    const byTenant = this.#perTenant.get(tenantId) ?? 0;
    const byPrincipal = this.#perPrincipal.get(principalKey) ?? 0;
    if (this.#total >= (this.#limits.perGateway ?? Infinity))
      throw resourceExhausted(
        1,
        'This gateway holds its maximum of blocking sends waiting; use returnImmediately or retry shortly',
      );
    if (byTenant >= this.#limits.perTenant)
      throw resourceExhausted(
        1,
        'Too many blocking sends waiting for this tenant; use returnImmediately or retry shortly',
      );
    if (byPrincipal >= this.#limits.perPrincipal)
      throw resourceExhausted(
        1,
        'Too many blocking sends waiting for this caller; use returnImmediately or retry shortly',
      );
    this.#perTenant.set(tenantId, byTenant + 1);
    this.#perPrincipal.set(principalKey, byPrincipal + 1);
    this.#total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total--;
      decrement(this.#perTenant, tenantId);
      decrement(this.#perPrincipal, principalKey);
    };
  }

  /** Waits held now by the tenant (for tests and metrics). */
  heldBy(tenantId: string): number {
    return this.#perTenant.get(tenantId) ?? 0;
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
