import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets at rest (push tokens, webhook credentials, signing secrets) with AES-256-GCM.
 * Layout: version byte (1) | 12-byte IV | 16-byte tag | ciphertext. The version byte leaves room
 * for key rotation.
 */
export interface SecretBox {
  seal(plaintext: string): Buffer;
  open(sealed: Buffer): string;
}

export function createSecretBox(key: string): SecretBox {
  if (key.length < 16) throw new Error('the secret key must be at least 16 characters');
  // Any operator-chosen string becomes a 256-bit key; a real deployment passes 32 random bytes.
  const k = createHash('sha256').update(key).digest();
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', k, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), body]);
    },
    open(sealed) {
      if (sealed[0] !== 1) throw new Error('unknown secret box version');
      const decipher = createDecipheriv('aes-256-gcm', k, sealed.subarray(1, 13));
      decipher.setAuthTag(sealed.subarray(13, 29));
      return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]).toString('utf8');
    },
  };
}
