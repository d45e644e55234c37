import { AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import { checkWebhookUrl, createGuardedAgent, type UrlPolicy } from '@switchyard/engine';
import type { AgentCard, AgentSkill } from '@switchyard/protocol';
import { UpstreamCardCache } from './upstream-client.ts';
import { createUpstreamFetch } from './upstream-fetch.ts';
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
}

/**
 * Reads the upstream agent's card at registration: the URL must pass the SSRF rules (checked on
 * the resolved addresses now, and on the connected address by the guarded dispatcher), and the
 * card must be an A2A card (0.3 or 1.0). Throws with a message fit for the operator.
 */
export async function readUpstreamCard(
  registration: UpstreamRegistration,
  policy: UrlPolicy,
  timeoutMs = 10_000,
): Promise<UpstreamCardFacts> {
  await checkWebhookUrl(registration.cardUrl, policy, undefined, 'upstream card');
  const dispatcher = createGuardedAgent({ policy, connectTimeoutMs: timeoutMs });
  try {
    const fetchImpl = createUpstreamFetch({
      dispatcher,
      headers: credentialHeaders(registration.credentials),
      requestTimeoutMs: timeoutMs,
      log: { lastStatus: undefined, redirected: false },
    });
    const sdkCard = await new UpstreamCardCache(0).get(registration.cardUrl, fetchImpl);
    const card = SdkAgentCard.toJSON(sdkCard) as AgentCard;
    if (!card.name || card.supportedInterfaces.length === 0)
      throw new Error('the document is not an A2A agent card (no name or no interfaces)');
    return {
      name: card.name,
      description: card.description || card.name,
      version: card.version || '1.0.0',
      // A 0.3 card or a sparse one may leave text fields empty; our cards require them.
      skills: card.skills.map((skill) => ({
        ...skill,
        name: skill.name || skill.id,
        description: skill.description || skill.name || skill.id,
        tags: skill.tags ?? [],
      })),
      defaultInputModes: card.defaultInputModes.length > 0 ? card.defaultInputModes : ['text/plain'],
      defaultOutputModes: card.defaultOutputModes.length > 0 ? card.defaultOutputModes : ['text/plain'],
      ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
      ...(card.iconUrl ? { iconUrl: card.iconUrl } : {}),
      protocolVersions: [...new Set(card.supportedInterfaces.map((i) => i.protocolVersion))],
    };
  } finally {
    await dispatcher.close();
  }
}
