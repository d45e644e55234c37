import { unsupportedOperation } from '../errors/factories.ts';
import type { AgentCard, AgentInterface } from '../types/agent-card.ts';
import type { SecurityScheme } from '../types/security.ts';
import {
  fromV03SecurityRequirement,
  fromV03SecurityScheme,
  toV03SecurityRequirement,
  toV03SecurityScheme,
} from './security.ts';
import { compact, mapArray, recordOf } from './shape.ts';
import type { AgentCardV03, AgentInterfaceV03, AgentSkillV03, SecuritySchemeV03 } from './types.ts';

/** What an interface or a 1.0 `A2A-Version` says for 0.3 (Major.Minor, digest §6). */
export const V03_PROTOCOL_VERSION = '0.3';

/** The card-level `protocolVersion` 0.3 servers published (the 0.3 schema's default). */
export const V03_CARD_PROTOCOL_VERSION = '0.3.0';

/** True for `0.3` and `0.3.x`. */
export function isV03Version(version: string | undefined): boolean {
  return version !== undefined && /^0\.3(?:\.\d+)?$/.test(version.trim());
}

export interface ToV03AgentCardOptions {
  /**
   * Also emit the 1.0 `supportedInterfaces` and `capabilities.extendedAgentCard` ("superset" card,
   * as a2a-js's compat layer serves): 0.3 clients ignore the fields, 1.0 clients that fetched
   * without `A2A-Version` still find their interfaces and whether GetExtendedAgentCard is served.
   * Default false.
   */
  embedV1Interfaces?: boolean;
}

/**
 * 1.0 card → 0.3 card (digest §13.4). Only interfaces declared with protocolVersion 0.3 can be
 * offered to a 0.3 client: the first becomes `url` + `preferredTransport`, the others
 * `additionalInterfaces`. A card without one cannot be shown to a 0.3 client at all.
 */
export function toV03AgentCard(card: AgentCard, options: ToV03AgentCardOptions = {}): AgentCardV03 {
  const v03 = card.supportedInterfaces.filter((i) => isV03Version(i.protocolVersion));
  const [primary, ...others] = v03;
  if (!primary) throw unsupportedOperation('this agent declares no A2A 0.3 interface');
  const { extendedAgentCard, ...capabilities } = card.capabilities;
  return compact({
    protocolVersion: V03_CARD_PROTOCOL_VERSION,
    name: card.name,
    description: card.description,
    url: primary.url,
    preferredTransport: primary.protocolBinding,
    additionalInterfaces: others.length > 0 ? others.map(toV03Interface) : undefined,
    iconUrl: card.iconUrl,
    provider: card.provider,
    version: card.version,
    documentationUrl: card.documentationUrl,
    capabilities: compact(options.embedV1Interfaces ? card.capabilities : capabilities),
    securitySchemes: card.securitySchemes && mapValues(card.securitySchemes, toV03SecurityScheme),
    security: card.securityRequirements?.map(toV03SecurityRequirement),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ securityRequirements, ...skill }) =>
      compact({ ...skill, security: securityRequirements?.map(toV03SecurityRequirement) }),
    ),
    supportsAuthenticatedExtendedCard: extendedAgentCard,
    signatures: card.signatures,
    supportedInterfaces: options.embedV1Interfaces ? card.supportedInterfaces : undefined,
  });
}

/**
 * 0.3 card → 1.0 card: `url`/`preferredTransport` and `additionalInterfaces` become interfaces
 * stamped with the card's version (Major.Minor), so a client knows to speak 0.3 to them.
 * `stateTransitionHistory` has no 1.0 field and is dropped.
 */
export function fromV03AgentCard(card: AgentCardV03): AgentCard {
  const version = majorMinor(card.protocolVersion);
  const primary: AgentInterface = {
    url: card.url,
    protocolBinding: card.preferredTransport ?? 'JSONRPC',
    protocolVersion: version,
  };
  const additional = (
    mapArray(card.additionalInterfaces, (i: AgentInterfaceV03) => ({
      url: i.url,
      protocolBinding: i.transport,
      protocolVersion: version,
    })) ?? []
  ).filter((i) => i.url !== primary.url || i.protocolBinding !== primary.protocolBinding);
  const { stateTransitionHistory: _history, ...capabilities } = recordOf(card.capabilities) ?? {};
  return compact({
    name: card.name,
    description: card.description,
    supportedInterfaces: [primary, ...additional],
    provider: card.provider,
    version: card.version,
    documentationUrl: card.documentationUrl,
    capabilities: compact({ ...capabilities, extendedAgentCard: card.supportsAuthenticatedExtendedCard }),
    securitySchemes: card.securitySchemes && fromV03Schemes(card.securitySchemes),
    securityRequirements: mapArray(card.security, fromV03SecurityRequirement),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills:
      mapArray(card.skills, ({ security, ...skill }: AgentSkillV03) =>
        compact({ ...skill, securityRequirements: mapArray(security, fromV03SecurityRequirement) }),
      ) ?? [],
    signatures: card.signatures,
    iconUrl: card.iconUrl,
  });
}

function toV03Interface(i: AgentInterface): AgentInterfaceV03 {
  return { url: i.url, transport: i.protocolBinding };
}

function fromV03Schemes(schemes: Record<string, SecuritySchemeV03>): Record<string, SecurityScheme> {
  const out: Record<string, SecurityScheme> = {};
  for (const [name, scheme] of Object.entries(recordOf(schemes) ?? {})) {
    const translated = recordOf(scheme) && fromV03SecurityScheme(scheme as SecuritySchemeV03);
    if (translated) out[name] = translated;
  }
  return out;
}

function mapValues<T, U>(record: Record<string, T>, fn: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value)]));
}

/** `0.3.0` → `0.3`; a card without a version is 0.3 (it is a 0.3-shaped card). */
function majorMinor(version: string | undefined): string {
  const m = /^(\d+)\.(\d+)/.exec(version ?? '');
  return m ? `${Number(m[1])}.${Number(m[2])}` : V03_PROTOCOL_VERSION;
}
