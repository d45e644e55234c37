import { createHash } from 'node:crypto';
import type { AgentRegistration } from '@switchyard/engine';
import {
  ProtocolBinding,
  toV03AgentCard,
  V03_PROTOCOL_VERSION,
  type AgentCard,
  type AgentCardV03,
  type SecurityRequirement,
  type SecurityScheme,
} from '@switchyard/protocol';
import {
  cardTemplateSchema,
  templateExtensions,
  templateSkills,
  type CardTemplate,
} from './card-template.ts';

export interface CardSettings {
  /** Origin clients reach the gateway at (PUBLIC_URL), without a trailing slash. */
  publicUrl: string;
  /** Declare the Bearer scheme too. */
  jwtEnabled: boolean;
}

/** A card ready to serve: its JSON and a strong ETag over exactly those bytes (digest §4.4). */
export interface ServedCard<C extends object = AgentCard> {
  card: C;
  json: string;
  etag: string;
}

/** `/agents/{tenantId}/{agentId}`: every agent has its own interfaces (one card per agent, §4.4). */
export function agentBasePath(tenantId: string, agentId: string): string {
  return `/agents/${encodeURIComponent(tenantId)}/${encodeURIComponent(agentId)}`;
}

/**
 * Builds the public and extended cards of a registration. Registrations are cached by the agent
 * directory for a few seconds and returned as the same object, so cards are memoized per object.
 */
export class CardBuilder {
  readonly #settings: CardSettings;
  readonly #memo = new WeakMap<
    AgentRegistration,
    { public: ServedCard; publicV03: ServedCard<AgentCardV03>; extended: ServedCard }
  >();
  readonly #templates = new WeakMap<AgentRegistration, CardTemplate>();

  constructor(settings: CardSettings) {
    this.#settings = settings;
  }

  publicCard(agent: AgentRegistration): ServedCard {
    return this.#build(agent).public;
  }

  /**
   * The public card for a client that sent no `A2A-Version` (0.3, digest §6): the 0.3 shape a 0.3
   * client reads (`url`, `protocolVersion`, OpenAPI security), with the 1.0 interfaces embedded as
   * a2a-js's compat layer does, so a 1.0 client that forgot the header still finds them (§13.4).
   */
  publicCardV03(agent: AgentRegistration): ServedCard<AgentCardV03> {
    return this.#build(agent).publicV03;
  }

  /** GetExtendedAgentCard (§7.8): the public card plus the registration's `extendedSkills`. */
  extendedCard(agent: AgentRegistration): ServedCard {
    return this.#build(agent).extended;
  }

  /** The registration's template, parsed once per registration; throws when the stored card is malformed. */
  template(agent: AgentRegistration): CardTemplate {
    let template = this.#templates.get(agent);
    if (!template) {
      template = cardTemplateSchema.parse(agent.card);
      this.#templates.set(agent, template);
    }
    return template;
  }

  #build(agent: AgentRegistration) {
    let built = this.#memo.get(agent);
    if (!built) {
      const template = this.template(agent);
      const card = this.#card(agent, template);
      const extended = {
        ...card,
        skills: [
          ...card.skills,
          ...templateSkills(template.extendedSkills ?? [], card.securitySchemes ?? {}),
        ],
      };
      built = {
        public: serve(card),
        publicV03: serve(toV03AgentCard(card, { embedV1Interfaces: true })),
        extended: serve(extended),
      };
      this.#memo.set(agent, built);
    }
    return built;
  }

  #card(agent: AgentRegistration, template: CardTemplate): AgentCard {
    const base = `${this.#settings.publicUrl}${agentBasePath(agent.tenantId, agent.id)}`;
    const extensions = templateExtensions(template);
    const securitySchemes: Record<string, SecurityScheme> = {
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
    };
    const securityRequirements: SecurityRequirement[] = [{ schemes: { apiKey: { list: [] } } }];
    if (this.#settings.jwtEnabled) {
      securitySchemes['bearer'] = { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } };
      securityRequirements.push({ schemes: { bearer: { list: [] } } });
    }
    return {
      name: template.name,
      description: template.description,
      supportedInterfaces: [
        { url: `${base}/rpc`, protocolBinding: ProtocolBinding.JSONRPC, protocolVersion: '1.0' },
        { url: `${base}/rest`, protocolBinding: ProtocolBinding.HTTP_JSON, protocolVersion: '1.0' },
        // The same JSON-RPC endpoint serves 0.3 to requests without A2A-Version (digest §13.4).
        {
          url: `${base}/rpc`,
          protocolBinding: ProtocolBinding.JSONRPC,
          protocolVersion: V03_PROTOCOL_VERSION,
        },
      ],
      ...(template.provider ? { provider: template.provider } : {}),
      version: template.version,
      ...(template.documentationUrl ? { documentationUrl: template.documentationUrl } : {}),
      capabilities: {
        streaming: true,
        pushNotifications: true,
        ...(extensions && extensions.length > 0 ? { extensions } : {}),
        extendedAgentCard: true,
      },
      securitySchemes,
      securityRequirements,
      defaultInputModes: template.defaultInputModes,
      defaultOutputModes: template.defaultOutputModes,
      skills: templateSkills(template.skills, securitySchemes),
      ...(template.iconUrl ? { iconUrl: template.iconUrl } : {}),
    };
  }
}

function serve<C extends object>(card: C): ServedCard<C> {
  const json = JSON.stringify(card);
  const etag = `"${createHash('sha256').update(json).digest('base64url')}"`;
  return { card, json, etag };
}
