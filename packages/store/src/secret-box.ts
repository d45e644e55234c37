import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets at rest (push tokens, webhook credentials, signing secrets) with AES-256-GCM.
 * Layout: version byte (1) | 12-byte IV | 16-byte tag | ciphertext.
 */
export interface SecretBox {
  seal(plaintext: string): Buffer;
  open(sealed: Buffer): string;
  /** Whether the current key sealed it (resealSecrets leaves such a value alone). */
  sealedWithCurrentKey(sealed: Buffer): boolean;
}

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

/** Any operator-chosen string becomes a 256-bit key; a real deployment passes 32 random bytes. */
function keyOf(key: string): Buffer {
  if (key.length < 16) throw new Error('the secret key must be at least 16 characters');
  return createHash('sha256').update(key).digest();
}

/**
 * Seals with `key`; opens what `key` sealed, or any of `previousKeys` (SWITCHYARD_SECRET_KEY_PREVIOUS):
 * a key is rotated by making the new one current and listing the old one as previous, on every
 * process, so rows sealed before go on opening while everything written from then on is sealed
 * with the new key. GCM authenticates: a wrong key fails at once, so trying each costs little.
 */
export function createSecretBox(key: string, previousKeys: readonly string[] = []): SecretBox {
  const current = keyOf(key);
  const openers = [current, ...previousKeys.map(keyOf)];
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, iv, { authTagLength: TAG_BYTES });
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
    },
    open(sealed) {
      if (sealed.length < HEADER_BYTES || sealed[0] !== VERSION)
        throw new Error('not a sealed secret of a known version');
      for (const k of openers) {
        try {
          return openWith(k, sealed);
        } catch {
          // Sealed under another key: the next one is tried.
        }
      }
      throw new Error('the secret was sealed with a key this process does not have');
    },
    sealedWithCurrentKey(sealed) {
      if (sealed.length < HEADER_BYTES || sealed[0] !== VERSION) return false;
      try {
        openWith(current, sealed);
        return true;
      } catch {
        return false;
      }
    },
  };
}

function openWith(key: Buffer, sealed: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 1 + IV_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAuthTag(sealed.subarray(1 + IV_BYTES, HEADER_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8');
}
