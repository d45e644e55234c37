import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { requireAuth, type IsSessionEnded } from '../src/auth/request-auth.ts';
import { SESSION_COOKIE } from '../src/auth/cookies.ts';
import { createSessionSigner } from '../src/auth/session-token.ts';

// Found in review: the sign-out check made every console request depend on Postgres; with it
// away every page, API call and stream reconnect was a 500, though the console is where operators
// look during an outage. A session's cookie is still checked; only the sign-out record is not.
const signer = createSessionSigner('console-test-admin-token-0123456789', 3_600_000);
let server: Server | undefined;
afterEach(() => server?.close());

async function serve(isEnded: IsSessionEnded): Promise<string> {
  const app = express();
  app.use(requireAuth(signer, isEnded));
  app.get('/api/x', (_req, res) => void res.json({ ok: true }));
  app.use((_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ error: 'internal' });
  });
  server = app.listen(0);
  await new Promise((resolve) => server!.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const cookie = () => `${SESSION_COOKIE}=${encodeURIComponent(signer.issue().value)}`;
const storeAway = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('the sign-out check while Postgres is away', () => {
  it('lets a valid session through', async () => {
    const base = await serve(() => Promise.reject(storeAway));
    expect((await fetch(`${base}/api/x`, { headers: { cookie: cookie() } })).status).toBe(200);
  });

  it('still refuses a signed-out session when the store answers, and fails on a real error', async () => {
    expect(
      (await fetch(`${await serve(() => Promise.resolve(true))}/api/x`, { headers: { cookie: cookie() } }))
        .status,
    ).toBe(401);
    server?.close();
    const broken = await serve(() => Promise.reject(new Error('bug')));
    expect((await fetch(`${broken}/api/x`, { headers: { cookie: cookie() } })).status).toBe(500);
  });
});
