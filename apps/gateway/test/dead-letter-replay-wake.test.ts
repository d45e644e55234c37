import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import type { AdminDeps } from '../src/admin/admin-deps.ts';
import { deadLetterRoutes } from '../src/admin/dead-letter-routes.ts';

// Found in review: a replay committed in Postgres, then the pushers' wake-up failed on Redis (a
// command timeout, a dropped connection) and the admin got a 500; retrying found no dead letter
// (404). The wake-up is best effort: the pushers poll for due deliveries anyway. The store is
// stubbed here: what is tested is the route's answer when Redis fails after the commit.
function serve(): Promise<{ url: string; close: () => void }> {
  const deps = {
    admin: { getTenant: () => Promise.resolve({ id: 'acme' }) },
    outbox: {
      replayDeadLetter: () => Promise.resolve(true),
      replayAllDeadLetters: () => Promise.resolve(3),
    },
    hints: { publishPushDue: () => Promise.reject(new Error('Command timed out')) },
  } as unknown as AdminDeps;
  const app = express().use(deadLetterRoutes(deps));
  return new Promise((resolve) => {
    const server = app.listen(0, () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => server.close(),
      }),
    );
  });
}

describe('dead-letter replay when the pushers cannot be woken', () => {
  it('answers the committed replay, one and all', async () => {
    const { url, close } = await serve();
    try {
      const one = await fetch(
        `${url}/tenants/acme/dead-letters/11111111-1111-4111-8111-111111111111/c1/3:replay`,
        { method: 'POST' },
      );
      expect([one.status, await one.json()]).toEqual([200, { replayed: 1 }]);
      const all = await fetch(`${url}/tenants/acme/dead-letters:replay`, { method: 'POST' });
      expect([all.status, await all.json()]).toEqual([200, { replayed: 3 }]);
    } finally {
      close();
    }
  });
});
