import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.ts';
import { send } from './support/http.ts';

// Found in review: a client whose connection failed while it sent its body (ECONNRESET) was taken
// for Postgres going away (isStoreUnavailable reads ECONNRESET so) and logged as "a dependency is
// unavailable", and the request metrics counted it `ok`: the client's request failed, and nobody
// got an answer.
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(async () => {
  await h?.stop();
});

const outcomes = async (): Promise<string[]> =>
  (await send('GET', `${h.url}/metrics`, { noVersion: true })).text
    .split('\n')
    .filter((line) => line.startsWith('switchyard_requests_total{'))
    .map((line) => /outcome="([^"]+)"/.exec(line)?.[1] ?? '');

describe('a client that resets its connection halfway through its body', () => {
  it('is counted as aborted, not as ok, and is no dependency being unavailable', async () => {
    const { port } = new URL(h.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      [
        'POST /agents/acme/echo/rpc HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        'Content-Type: application/json',
        'A2A-Version: 1.0',
        `X-API-Key: ${h.fixtures.keys.alice}`,
        'Content-Length: 100000',
        // The server answers 100 Continue once it has the request: no guessing how long it takes.
        'Expect: 100-continue',
        '',
        '',
      ].join('\r\n'),
    );
    await new Promise((resolve) => socket.once('data', resolve));
    socket.write(
      `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"parts":[{"text":"${'x'.repeat(5000)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.resetAndDestroy();
    // Counted once, as a request its client left before any answer: not `ok` (200 is only the
    // default status), not Unavailable.
    await expect.poll(outcomes, { timeout: 5000 }).toEqual(['aborted']);
  });
});
