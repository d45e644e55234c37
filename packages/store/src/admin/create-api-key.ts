import { randomUUID } from 'node:crypto';
import type { Db } from '../db.ts';
import { ApiKeyConflictError } from './admin-errors.ts';
import { API_KEY_COLUMNS, toApiKeyRecord } from './admin-rows.ts';
import type { IssuedApiKey, NewApiKey } from './admin-store.ts';
import { apiKeyPrefix, generateApiKey, hashApiKey } from './key-material.ts';

/** Shorter fixed keys would be guessable; generated keys are 46 characters. */
const MIN_PROVIDED_KEY_LENGTH = 16;

/**
 * Stores only the key's SHA-256 and prefix. A provided key (demo seeding) is idempotent: the
 * unique key_hash makes a second insert a no-op, and the existing row is returned only to the
 * tenant and principal it was issued to. Accepts a transaction (rotateApiKey runs it in one).
 */
export async function createApiKey(db: Db, input: NewApiKey): Promise<IssuedApiKey> {
  if (input.plaintext !== undefined && input.plaintext.length < MIN_PROVIDED_KEY_LENGTH) {
    throw new RangeError(`a provided API key must be at least ${MIN_PROVIDED_KEY_LENGTH} characters`);
  }
  const plaintext = input.plaintext ?? generateApiKey();
  const keyHash = hashApiKey(plaintext);
  const inserted = await db
    .insertInto('api_keys')
    .values({
      id: randomUUID(),
      tenant_id: input.tenantId,
      principal: input.principal,
      role: input.role,
      key_hash: keyHash,
      key_prefix: apiKeyPrefix(plaintext),
      description: input.description ?? '',
      expires_at: input.expiresAt ?? null,
    })
    .onConflict((oc) => oc.column('key_hash').doNothing())
    .returning(API_KEY_COLUMNS)
    .executeTakeFirst();
  if (inserted) return { key: toApiKeyRecord(inserted), plaintext };

  // Only a provided key can collide: two generated 256-bit keys never do.
  const existing = await db
    .selectFrom('api_keys')
    .select(API_KEY_COLUMNS)
    .where('key_hash', '=', keyHash)
    .executeTakeFirst();
  if (!existing || existing.tenant_id !== input.tenantId || existing.principal !== input.principal) {
    throw new ApiKeyConflictError();
  }
  return { key: toApiKeyRecord(existing), plaintext };
}
