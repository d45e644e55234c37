import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../src/secret-box.ts';

const OLD = 'the-old-secret-key-0123456789';
const NEW = 'the-new-secret-key-9876543210';

// Found in review: the box opened with exactly one key, so changing SWITCHYARD_SECRET_KEY made
// every stored push credential, webhook secret and upstream credential unreadable at once (the
// pusher dead-lettered every delivery), and a rolling deploy had each side dead-letter the other's.
describe('SecretBox key rotation', () => {
  it('opens what a previous key sealed, and seals with the current key only', () => {
    const sealedBefore = createSecretBox(OLD).seal('push token');
    const rotated = createSecretBox(NEW, [OLD]);
    expect(rotated.open(sealedBefore)).toBe('push token');
    const sealedAfter = rotated.seal('new token');
    expect(createSecretBox(NEW).open(sealedAfter)).toBe('new token');
    expect(() => createSecretBox(OLD).open(sealedAfter)).toThrow();
  });

  it('refuses what none of its keys sealed, naming the reason, and a truncated or tampered box', () => {
    const sealed = createSecretBox(OLD).seal('secret');
    expect(() => createSecretBox(NEW).open(sealed)).toThrow('sealed with a key this process does not have');
    expect(() => createSecretBox(OLD).open(sealed.subarray(0, 20))).toThrow('not a sealed secret');
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => createSecretBox(OLD).open(tampered)).toThrow();
  });

  it('refuses a previous key shorter than 16 characters, as the current one', () => {
    expect(() => createSecretBox(NEW, ['short'])).toThrow('at least 16 characters');
  });
});
