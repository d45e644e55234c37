import { AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import {
  checkWebhookUrl,
  createGuardedAgent,
  systemLookup,
  UrlRefusedError,
  type UrlPolicy,
} from '@switchyard/engine';
import type { AgentCard, AgentSkill } from '@switchyard/protocol';
import { CardProblem, checkRequiredExtensions, checkSchemes, checkUsable } from './upstream-card-check.ts';
import { fetchCard } from './upstream-client.ts';
import { createUpstreamFetch, ResponseTooLargeError } from './upstream-fetch.ts';
import { HOP_COUNT_HEADER } from './upstream-hops.ts';
import { credentialHeaders, type UpstreamRegistration } from './upstream-settings.ts';

/** The parts of an upstream card a Switchyard card republishes (ours keep interfaces and security). */
export interface UpstreamCardFacts {
  name: string;
  description: string;
  version: string;
  skills: AgentSkill[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  documentationUrl?: string;
  iconUrl?: string;
  /** The protocol versions the upstream's interfaces declare. */
  protocolVersions: string[];
  /** URLs of the interfaces the platform may call (JSONRPC or HTTP+JSON, 1.0 or 0.3). */
  interfaceUrls: string[];
}

/**
 * Reads the upstream agent's card at registration: the URL must pass the SSRF rules (checked on
 * the resolved addresses now, and on the connected address by the guarded dispatcher), and the
 * card must be an A2A card (0.3 or 1.0) with an interface the platform can call (the requested
 * binding, when there is one). Throws UrlRefusedError or CardProblem, with a message fit for the
 * operator: never an exception's own text.
 */
export async function readUpstreamCard(
  registration: UpstreamRegistration,
  policy: UrlPolicy,
  timeoutMs = 10_000,
): Promise<UpstreamCardFacts> {
  await checkWebhookUrl(registration.cardUrl, policy, systemLookup, 'upstream card');
  const dispatcher = createGuardedAgent({
    policy,
    connectTimeoutMs: timeoutMs,
    // An operator's name (admin API): the system resolver, hosts file and search domains included.
    resolve: systemLookup,
  });
  try {
    const fetchImpl = createUpstreamFetch({
      dispatcher,
      // One hop: this platform is calling it (see upstream-hops.ts).
      headers: { ...credentialHeaders(registration.credentials), [HOP_COUNT_HEADER]: '1' },
      allowHttp: policy.allowHttp,
      requestTimeoutMs: timeoutMs,
      log: { lastStatus: undefined, redirected: false },
    });
    const sdkCard = await fetchCard(registration.cardUrl, fetchImpl).catch((err: unknown) => {
      throw asCardProblem(err, timeoutMs);
    });
    const usable = checkUsable(sdkCard, registration.binding);
    checkSchemes(usable, policy.allowHttp);
    checkRequiredExtensions(sdkCard);
    const card = SdkAgentCard.toJSON(sdkCard) as AgentCard;
    return {
      name: card.name,
      description: card.description || card.name,
      version: card.version || '1.0.0',
      // A 0.3 card or a sparse one may leave text fields empty; our cards require them.
      // A skill's securityRequirements name the upstream's schemes, for the upstream's
      // credentials: callers of this platform hold its own (its card's schemes), never those.
      skills: (card.skills ?? []).map(({ securityRequirements: _upstreamOnly, ...skill }) => ({
        ...skill,
        name: skill.name || skill.id,
        description: skill.description || skill.name || skill.id,
        tags: skill.tags ?? [],
      })),
      defaultInputModes: card.defaultInputModes?.length ? card.defaultInputModes : ['text/plain'],
      defaultOutputModes: card.defaultOutputModes?.length ? card.defaultOutputModes : ['text/plain'],
      ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
      ...(card.iconUrl ? { iconUrl: card.iconUrl } : {}),
      protocolVersions: [...new Set(usable.map((i) => i.protocolVersion))],
      interfaceUrls: usable.map((i) => i.url),
    };
  } finally {
    await dispatcher.close();
  }
}

/** A failed card read in the operator's terms. */
function asCardProblem(err: unknown, timeoutMs: number): Error {
  if (err instanceof CardProblem || err instanceof UrlRefusedError) return err;
  if (err instanceof ResponseTooLargeError) return new CardProblem(err.message);
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
    return new CardProblem(`the card URL did not answer within ${timeoutMs / 1000} s`);
  // Our own refusal of a redirect (upstream-fetch.ts): its text is ours.
  if (err instanceof Error && /^the upstream answered HTTP 3\d\d/.test(err.message))
    return new CardProblem(err.message.replace('the upstream answered', 'the card URL answered'));
  // undici: TypeError('fetch failed') with the reason as its cause.
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  // Refused at connect (a name that resolved differently than when checked): its text names the
  // address, which the operator is not told (url-policy.ts).
  if (cause instanceof UrlRefusedError)
    return new CardProblem('the card URL host is not public and not in the allow-list (refused on connect)');
  const code = typeof cause?.code === 'string' && /^[A-Z_]+$/.test(cause.code) ? ` (${cause.code})` : '';
  return new CardProblem(`the card URL could not be reached${code}`);
}
