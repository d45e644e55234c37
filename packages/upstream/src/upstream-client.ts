import type { AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import type { UpstreamBinding } from './upstream-settings.ts';

/**
 * Upstream cards, cached per process for a short while: a run needs the card to pick the
 * transport, and re-reading it on every run would double the upstream round trips.
 */
export class UpstreamCardCache {
  private readonly ttlMs: number;
  private readonly maxCards: number;
  private readonly cards = new Map<string, { card: SdkAgentCard; until: number }>();

  /** At most `maxCards` cards are kept (oldest fetched dropped first): one per upstream agent. */
  constructor(ttlMs: number, maxCards = 1000) {
    this.ttlMs = ttlMs;
    this.maxCards = maxCards;
  }

  async get(cardUrl: string, fetchImpl: typeof fetch): Promise<SdkAgentCard> {
    const hit = this.cards.get(cardUrl);
    if (hit && hit.until > Date.now()) return hit.card;
    // An expired card goes at once: agents re-registered under new card URLs, or removed, must
    // not stay in a long-lived worker for good.
    this.cards.delete(cardUrl);
    // legacyCompat: a 0.3 card is translated, and its interfaces are stamped protocolVersion 0.3,
    // so the transport factories below pick the 0.3 transport for a 0.3 agent.
    const resolver = new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } });
    const card = await resolver.resolve(cardUrl, '');
    this.cards.set(cardUrl, { card, until: Date.now() + this.ttlMs });
    // A Map iterates in insertion order, so the first key is the card fetched longest ago.
    while (this.cards.size > this.maxCards) this.cards.delete(this.cards.keys().next().value!);
    return card;
  }

  /** Cards held (tests). */
  get size(): number {
    return this.cards.size;
  }
}

/**
 * An official A2A SDK client for one run, bound to that run's fetch (SSRF guard, credentials,
 * abort signal). It speaks 1.0 or 0.3, JSON-RPC or HTTP+JSON, as the card says.
 */
export function createUpstreamClient(
  card: SdkAgentCard,
  binding: UpstreamBinding | undefined,
  fetchImpl: typeof fetch,
): Promise<Client> {
  const legacyCompat = { enabled: true };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({ fetchImpl, legacyCompat }),
        new RestTransportFactory({ fetchImpl, legacyCompat }),
      ],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
      ...(binding ? { preferredTransports: [binding] } : {}),
    }),
  );
  return factory.createFromAgentCard(card);
}

/** Whether the upstream streams (SendStreamingMessage and SubscribeToTask). */
export function streams(card: SdkAgentCard): boolean {
  return card.capabilities?.streaming === true;
}
