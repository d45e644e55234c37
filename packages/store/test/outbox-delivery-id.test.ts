import { describe, expect, it } from 'vitest';
import { deliveryIdOf } from '../src/outbox/index.ts';

// The webhook-id a receiver deduplicates on (apps/pusher/README.md): one per delivery, so distinct
// (task, config, seq) must never share one, and it must be a valid header value.

const taskId = '0b6f3c1e-7d0a-4a53-9b8e-1f2a3b4c5d6e';
const otherTask = 'f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9';

/** The key back from an id: the task ends at the first dot, the seq starts after the last. */
function keyOf(id: string) {
  const first = id.indexOf('.');
  const last = id.lastIndexOf('.');
  const config = id.slice(first + 1, last);
  return {
    taskId: id.slice(0, first),
    configId: config.includes('%') ? decodeURIComponent(config) : config,
    seq: Number(id.slice(last + 1)),
  };
}

describe('deliveryIdOf', () => {
  it('keeps the ids of configs named with letters, digits and dashes, and other visible ASCII without %', () => {
    for (const configId of [
      'hook',
      'Hook-2',
      '0',
      'a1-B2-c3',
      'a.b',
      'v1.2.3',
      'x/y+z=',
      '~!*()[]{}:;,?@#$&',
    ]) {
      expect(deliveryIdOf({ taskId, configId, seq: 7 })).toBe(`${taskId}.${configId}.7`);
    }
  });

  it('tells apart a config id from its own percent-encoding', () => {
    const pairs: Array<[string, string]> = [
      ['a b', 'a%20b'],
      ['é', '%C3%A9'],
      ['a\tb', 'a%09b'],
      ['%', '%25'],
      ['100%', '100%25'],
      ['😀', '%F0%9F%98%80'],
    ];
    for (const [plain, encoded] of pairs) {
      const a = deliveryIdOf({ taskId, configId: plain, seq: 7 });
      const b = deliveryIdOf({ taskId, configId: encoded, seq: 7 });
      expect({ plain, encoded, same: a === b }).toEqual({ plain, encoded, same: false });
    }
  });

  it('is a header value: visible ASCII only', () => {
    for (const configId of ['a b', 'é', 'line\nbreak', '\u0000', '%', 'tab\t', 'ü.ö', 'a%20b']) {
      expect(deliveryIdOf({ taskId, configId, seq: 1 })).toMatch(/^[\x21-\x7e]+$/);
    }
  });

  it('gives distinct deliveries distinct ids, dots and percent signs included', () => {
    const alphabet = ['a', 'Z', '0', '-', '.', '%', '2', '0', ' ', 'é', '😀', '\t', '+', '_'];
    const configIds = new Set<string>(['', '.', '..', '%', '%%', 'a.1', 'a', '1', '1.1']);
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    while (configIds.size < 2_000) {
      const length = 1 + Math.floor(random() * 6);
      configIds.add(Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''));
    }
    const seen = new Map<string, string>();
    for (const configId of configIds) {
      for (const task of [taskId, otherTask]) {
        for (const seq of [1, 11, 111]) {
          const key = { taskId: task, configId, seq };
          const id = deliveryIdOf(key);
          // The id reads back as its key, so no other key has it.
          expect(keyOf(id)).toEqual(key);
          const earlier = seen.get(id);
          expect(earlier).toBeUndefined();
          seen.set(id, JSON.stringify(key));
        }
      }
    }
  });
});
