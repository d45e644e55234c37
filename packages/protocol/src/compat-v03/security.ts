import type { OAuthFlows, SecurityRequirement, SecurityScheme } from '../types/security.ts';
import { compact, recordOf } from './shape.ts';
import type { OAuthFlowV03, OAuthFlowsV03, SecurityRequirementV03, SecuritySchemeV03 } from './types.ts';

// Security schemes and requirements of the card (digest §13.4): 0.3 is OpenAPI-shaped (`type`,
// `in`, `{name: scopes}`), 1.0 is a proto oneof (`apiKeySecurityScheme`, `location`, `{list}`).

export function toV03SecurityRequirement(requirement: SecurityRequirement): SecurityRequirementV03 {
  return Object.fromEntries(
    Object.entries(requirement.schemes).map(([name, scopes]) => [name, [...scopes.list]]),
  );
}

export function fromV03SecurityRequirement(requirement: SecurityRequirementV03): SecurityRequirement {
  const entries = Object.entries(recordOf(requirement) ?? {});
  return {
    schemes: Object.fromEntries(
      entries.map(([name, scopes]) => [name, { list: Array.isArray(scopes) ? scopes.map(String) : [] }]),
    ),
  };
}

export function toV03SecurityScheme(scheme: SecurityScheme): SecuritySchemeV03 {
  if (scheme.apiKeySecurityScheme) {
    const { location, name, description } = scheme.apiKeySecurityScheme;
    return compact({ type: 'apiKey', in: location, name, description });
  }
  if (scheme.httpAuthSecurityScheme) return compact({ type: 'http', ...scheme.httpAuthSecurityScheme });
  if (scheme.oauth2SecurityScheme) {
    const { flows, ...rest } = scheme.oauth2SecurityScheme;
    return compact({ type: 'oauth2', ...rest, flows: toV03OAuthFlows(flows) });
  }
  if (scheme.openIdConnectSecurityScheme)
    return compact({ type: 'openIdConnect', ...scheme.openIdConnectSecurityScheme });
  return compact({ type: 'mutualTLS', description: scheme.mtlsSecurityScheme.description });
}

/** An unknown `type` yields undefined: a scheme a 1.0 card cannot express is left out. */
export function fromV03SecurityScheme(scheme: SecuritySchemeV03): SecurityScheme | undefined {
  switch (scheme.type) {
    case 'apiKey':
      return {
        apiKeySecurityScheme: compact({
          location: scheme.in,
          name: scheme.name,
          description: scheme.description,
        }),
      };
    case 'http': {
      const { type: _type, ...rest } = scheme;
      return { httpAuthSecurityScheme: compact(rest) };
    }
    case 'oauth2': {
      const { type: _type, flows, ...rest } = scheme;
      return { oauth2SecurityScheme: compact({ ...rest, flows: fromV03OAuthFlows(flows) }) };
    }
    case 'openIdConnect': {
      const { type: _type, ...rest } = scheme;
      return { openIdConnectSecurityScheme: compact(rest) };
    }
    case 'mutualTLS':
      return { mtlsSecurityScheme: compact({ description: scheme.description }) };
    default:
      return undefined;
  }
}

/** 1.0 `deviceCode` (RFC 8628) has no 0.3 form and is left out; `pkceRequired` too. */
function toV03OAuthFlows(flows: OAuthFlows): OAuthFlowsV03 {
  if (flows.authorizationCode) {
    const { pkceRequired: _pkce, ...flow } = flows.authorizationCode;
    return { authorizationCode: compact(flow) };
  }
  if (flows.clientCredentials) return { clientCredentials: compact(flows.clientCredentials) };
  if (flows.implicit)
    return { implicit: compact({ ...flows.implicit, scopes: flows.implicit.scopes ?? {} }) };
  if (flows.password)
    return { password: compact({ ...flows.password, scopes: flows.password.scopes ?? {} }) };
  return {};
}

/** 1.0 allows one flow per scheme: the first of authorizationCode, clientCredentials, implicit, password. */
function fromV03OAuthFlows(flows: OAuthFlowsV03): OAuthFlows {
  const f = (recordOf(flows) ?? {}) as OAuthFlowsV03;
  const scopes = (flow: OAuthFlowV03) => flow.scopes ?? {};
  if (f.authorizationCode) {
    const { authorizationUrl = '', tokenUrl = '', refreshUrl } = f.authorizationCode;
    return {
      authorizationCode: compact({
        authorizationUrl,
        tokenUrl,
        refreshUrl,
        scopes: scopes(f.authorizationCode),
      }),
    };
  }
  if (f.clientCredentials) {
    const { tokenUrl = '', refreshUrl } = f.clientCredentials;
    return { clientCredentials: compact({ tokenUrl, refreshUrl, scopes: scopes(f.clientCredentials) }) };
  }
  if (f.implicit) return { implicit: compact({ ...f.implicit, tokenUrl: undefined }) };
  if (f.password) return { password: compact({ ...f.password, authorizationUrl: undefined }) };
  // No flow at all: nothing to choose, the card is as incomplete as it came.
  return {} as OAuthFlows;
}
