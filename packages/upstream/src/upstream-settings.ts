import { createHash } from 'node:crypto';
import type { SecretBox } from '@switchyard/store';
import { z } from 'zod';

/** The executor name of an agent that is an existing A2A server reached over the network. */
export const UPSTREAM_EXECUTOR = 'a2a-upstream';

/** How the worker authenticates to the upstream agent. Stored sealed, never returned. */
const credentialsSchema = z.discriminatedUnion('scheme', [
  z.object({ scheme: z.literal('bearer'), token: z.string().min(1).max(8192) }),
  z.object({
    scheme: z.literal('header'),
    name: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/, 'an HTTP header name')
      .refine(
        (name) => !/^(host|content-length|content-type|a2a-version|switchyard-hop-count)$/i.test(name),
        {
          message: 'must not be a header the client sets itself',
        },
      ),
    value: z.string().min(1).max(8192),
  }),
]);
export type UpstreamCredentials = z.infer<typeof credentialsSchema>;

const bindingSchema = z.enum(['JSONRPC', 'HTTP+JSON']);
export type UpstreamBinding = z.infer<typeof bindingSchema>;

/** What an operator sends when registering an upstream agent (admin API `settings`). */
export const upstreamRegistrationSchema = z
  .object({
    /** The upstream agent card's full URL, e.g. https://agent.example/.well-known/agent-card.json. */
    cardUrl: z.url({ protocol: /^https?$/ }),
    /** The binding to use; default: the first the card offers that we speak. */
    binding: bindingSchema.optional(),
    credentials: credentialsSchema.optional(),
  })
  .strict();
export type UpstreamRegistration = z.infer<typeof upstreamRegistrationSchema>;

/** What is stored in the agent registration's settings: credentials sealed (AES-256-GCM). */
export interface StoredUpstreamSettings {
  cardUrl: string;
  binding?: UpstreamBinding;
  sealedCredentials?: string;
}

export function sealUpstreamSettings(input: UpstreamRegistration, box: SecretBox): StoredUpstreamSettings {
  return {
    cardUrl: input.cardUrl,
    ...(input.binding ? { binding: input.binding } : {}),
    ...(input.credentials
      ? { sealedCredentials: box.seal(JSON.stringify(input.credentials)).toString('base64') }
      : {}),
  };
}

const storedSchema = z.object({
  cardUrl: z.string(),
  binding: bindingSchema.optional(),
  sealedCredentials: z.string().optional(),
});

export interface UpstreamTarget {
  cardUrl: string;
  binding: UpstreamBinding | undefined;
  credentials: UpstreamCredentials | undefined;
}

/** Reads a registration's stored settings back, opening the credentials. Throws on a bad record. */
export function openUpstreamSettings(
  settings: Readonly<Record<string, unknown>>,
  box: SecretBox,
): UpstreamTarget {
  const stored = storedSchema.parse(settings);
  return {
    cardUrl: stored.cardUrl,
    binding: stored.binding,
    credentials: stored.sealedCredentials
      ? credentialsSchema.parse(JSON.parse(box.open(Buffer.from(stored.sealedCredentials, 'base64'))))
      : undefined,
  };
}

/** The request headers that carry the credentials. */
export function credentialHeaders(credentials: UpstreamCredentials | undefined): Record<string, string> {
  if (!credentials) return {};
  if (credentials.scheme === 'bearer') return { authorization: `Bearer ${credentials.token}` };
  return { [credentials.name.toLowerCase()]: credentials.value };
}

/**
 * A fingerprint of the credentials (SHA-256, never the secret itself), '' for none: what the card
 * cache keys a card by besides its URL.
 */
export function credentialsFingerprint(credentials: UpstreamCredentials | undefined): string {
  return credentials ? createHash('sha256').update(JSON.stringify(credentials)).digest('base64url') : '';
}
