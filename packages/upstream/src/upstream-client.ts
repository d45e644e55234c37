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
  private readonly cards = new Map<string, { card: SdkAgentCard; until: number }>();

  constructor(ttlMs: number) {
    this.ttlMs = ttlMs;
  }

  async get(cardUrl: string, fetchImpl: typeof fetch): Promise<SdkAgentCard> {
    const hit = this.cards.get(cardUrl);
    if (hit && hit.until > Date.now()) return hit.card;
    // legacyCompat: a 0.3 card is translated, and its interfaces are stamped protocolVersion 0.3,
    // so the transport factories below pick the 0.3 transport for a 0.3 agent.
    const resolver = new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } });
    const card = await resolver.resolve(cardUrl, '');
    this.cards.set(cardUrl, { card, until: Date.now() + this.ttlMs });
    return card;
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
