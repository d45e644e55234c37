import type { JsonObject } from './common.ts';
import type { SecurityRequirement, SecurityScheme } from './security.ts';

/** Core binding names; custom bindings SHOULD use a URI (digest §2.5). */
export const ProtocolBinding = {
  JSONRPC: 'JSONRPC',
  GRPC: 'GRPC',
  HTTP_JSON: 'HTTP+JSON',
} as const;

export type ProtocolBinding = (typeof ProtocolBinding)[keyof typeof ProtocolBinding];

export interface AgentInterface {
  /** Absolute HTTPS URL for HTTP bindings; `host:port` for gRPC. */
  url: string;
  /** Open string: a ProtocolBinding value or a URI. */
  protocolBinding: ProtocolBinding | (string & {});
  /** Opaque routing value clients copy into every request's `tenant` (§2.6). */
  tenant?: string;
  /** Major.Minor only, e.g. `"1.0"`. */
  protocolVersion: string;
}

export interface AgentProvider {
  url: string;
  organization: string;
}

export interface AgentExtension {
  uri?: string;
  description?: string;
  /** Clients must support it, else ExtensionSupportRequiredError (§6). */
  required?: boolean;
  params?: JsonObject;
}

/** Absent or false means unsupported (§7.9). */
export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  extensions?: AgentExtension[];
  extendedAgentCard?: boolean;
}

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  /** Overrides the card's defaults. */
  inputModes?: string[];
  outputModes?: string[];
  securityRequirements?: SecurityRequirement[];
}

/** A JWS signature over the RFC 8785 canonical card without `signatures` (digest §9). */
export interface AgentCardSignature {
  /** base64url JWS protected header. */
  protected: string;
  /** base64url. */
  signature: string;
  header?: JsonObject;
}

/** AgentCard (digest §2.5). There is no top-level `protocolVersion`/`url` in 1.0. */
export interface AgentCard {
  name: string;
  description: string;
  /** Ordered: the first entry is preferred. */
  supportedInterfaces: AgentInterface[];
  provider?: AgentProvider;
  /** The agent's own version, not the protocol version. */
  version: string;
  documentationUrl?: string;
  capabilities: AgentCapabilities;
  securitySchemes?: Record<string, SecurityScheme>;
  securityRequirements?: SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  signatures?: AgentCardSignature[];
  iconUrl?: string;
}
