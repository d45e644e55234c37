import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER, type AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { A2AError } from '@a2a-js/sdk/errors';
import { CardProblem, checkCardShape, MAX_CARD_BYTES, usableInterfaces } from './upstream-card-check.ts';
import { limitResponse } from './upstream-fetch.ts';
import type { UpstreamBinding } from './upstream-settings.ts';

/**
 * Upstream cards, cached per process for a short while: a run needs the card to pick the
 * transport, and re-reading it on every run would double the upstream round trips. A card is
 * kept per URL and per the credentials it was read with (`readWith`, a fingerprint): an upstream
 * may answer each tenant's credentials with a card of its own (its interfaces, an authenticated
 * card), and one tenant's must never serve another's registration of the same URL.
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

  async get(cardUrl: string, fetchImpl: typeof fetch, readWith = ''): Promise<SdkAgentCard> {
    const key = `${readWith}\n${cardUrl}`;
    const hit = this.cards.get(key);
    if (hit && hit.until > Date.now()) return hit.card;
    // An expired card goes at once: agents re-registered under new card URLs, or removed, must
    // not stay in a long-lived worker for good.
    this.cards.delete(key);
    const card = await fetchCard(cardUrl, fetchImpl);
    this.cards.set(key, { card, until: Date.now() + this.ttlMs });
    // A Map iterates in insertion order, so the first key is the card fetched longest ago.
    while (this.cards.size > this.maxCards) this.cards.delete(this.cards.keys().next().value!);
    return card;
  }

  /** Cards held (tests). */
  get size(): number {
    return this.cards.size;
  }
}

// legacyCompat: a 0.3 card is translated, and its interfaces are stamped protocolVersion 0.3, so
// the transport factories pick the 0.3 transport for a 0.3 agent.
const cardReader = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } });

/**
 * Reads an upstream card: at most MAX_CARD_BYTES (the read stops there), JSON, of the shape the
 * platform needs (checkCardShape), then as the SDK reads cards (0.3 translated). Throws
 * CardProblem for a card that is not usable, or the fetch's own error (network, timeout, limit).
 */
export async function fetchCard(cardUrl: string, fetchImpl: typeof fetch): Promise<SdkAgentCard> {
  const response = await fetchImpl(cardUrl, { headers: { [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION } });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new CardProblem(`the card URL answered HTTP ${response.status}`);
  }
  const text = await limitResponse(response, MAX_CARD_BYTES, 'the card').text();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CardProblem('the card URL did not answer with JSON');
  }
  const checked = checkCardShape(raw);
  try {
    return cardReader.normalizeAgentCard(checked);
  } catch (err) {
    // The SDK's 0.3 translation refuses what it cannot map (an OAuth scheme without flows…).
    const detail = err instanceof A2AError ? `: ${err.message}` : '';
    throw new CardProblem(`the card could not be read as an A2A 0.3 card${detail}`);
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
  // Only the interfaces we speak: the SDK would otherwise pick, say, a JSONRPC 9.9 interface listed
  // first and call it as 1.0. A card without one was refused at registration.
  const usable = usableInterfaces(card);
  if (usable.length === 0)
    throw new CardProblem('the upstream card offers no interface this platform can call');
  return factory.createFromAgentCard({ ...card, supportedInterfaces: usable });
}

/** Whether the upstream streams (SendStreamingMessage and SubscribeToTask). */
export function streams(card: SdkAgentCard): boolean {
  return card.capabilities?.streaming === true;
}
