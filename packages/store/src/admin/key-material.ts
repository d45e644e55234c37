import { createHash, randomBytes } from 'node:crypto';

/** Standard Webhooks secrets are `whsec_` + base64 of the raw key (standardwebhooks.com). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** 256 bits of randomness; the `sy_` prefix lets secret scanners recognise a leaked key. */
export function generateApiKey(): string {
  return `sy_${randomBytes(32).toString('base64url')}`;
}

/**
 * A fast unsalted hash is the right one for 256-bit random keys (no dictionary to attack) and
 * makes authentication one probe of the unique index on key_hash.
 */
export function hashApiKey(plaintext: string): Buffer {
  return createHash('sha256').update(plaintext, 'utf8').digest();
}

export const KEY_PREFIX_LENGTH = 10;

export function apiKeyPrefix(plaintext: string): string {
  return plaintext.slice(0, KEY_PREFIX_LENGTH);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Key ids are uuids; anything else cannot match, and would make Postgres raise a cast error. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
