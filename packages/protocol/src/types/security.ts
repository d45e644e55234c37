import type { OneOf } from './common.ts';

/** `{ "list": [...] }`, the value type of SecurityRequirement.schemes (digest §2.5). */
export interface StringList {
  list: string[];
}

/** Scheme name → scopes, e.g. `{"schemes":{"google":{"list":["openid"]}}}`. */
export interface SecurityRequirement {
  schemes: Record<string, StringList>;
}

export interface ApiKeySecurityScheme {
  description?: string;
  /** `query`, `header` or `cookie` (v0.3 called it `in`). */
  location: string;
  name: string;
}

export interface HttpAuthSecurityScheme {
  description?: string;
  /** e.g. `Bearer`. */
  scheme: string;
  bearerFormat?: string;
}

export interface AuthorizationCodeOAuthFlow {
  authorizationUrl: string;
  tokenUrl: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
  pkceRequired?: boolean;
}

export interface ClientCredentialsOAuthFlow {
  tokenUrl: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}

/** RFC 8628. */
export interface DeviceCodeOAuthFlow {
  deviceAuthorizationUrl: string;
  tokenUrl: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}

/** @deprecated kept in the 1.0 proto for compatibility. */
export interface ImplicitOAuthFlow {
  authorizationUrl?: string;
  refreshUrl?: string;
  scopes?: Record<string, string>;
}

/** @deprecated kept in the 1.0 proto for compatibility. */
export interface PasswordOAuthFlow {
  tokenUrl?: string;
  refreshUrl?: string;
  scopes?: Record<string, string>;
}

/** A oneof in 1.0: one flow per scheme (v0.3/OpenAPI allowed several). */
export type OAuthFlows = OneOf<{
  authorizationCode: AuthorizationCodeOAuthFlow;
  clientCredentials: ClientCredentialsOAuthFlow;
  deviceCode: DeviceCodeOAuthFlow;
  implicit: ImplicitOAuthFlow;
  password: PasswordOAuthFlow;
}>;

export interface OAuth2SecurityScheme {
  description?: string;
  flows: OAuthFlows;
  /** RFC 8414 metadata URL. */
  oauth2MetadataUrl?: string;
}

export interface OpenIdConnectSecurityScheme {
  description?: string;
  openIdConnectUrl: string;
}

export interface MutualTlsSecurityScheme {
  description?: string;
}

/** A oneof: the member name replaces v0.3's OpenAPI `type` field. */
export type SecurityScheme = OneOf<{
  apiKeySecurityScheme: ApiKeySecurityScheme;
  httpAuthSecurityScheme: HttpAuthSecurityScheme;
  oauth2SecurityScheme: OAuth2SecurityScheme;
  openIdConnectSecurityScheme: OpenIdConnectSecurityScheme;
  mtlsSecurityScheme: MutualTlsSecurityScheme;
}>;
