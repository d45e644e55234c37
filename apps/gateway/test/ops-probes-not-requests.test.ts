import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.ts';
import { send } from './support/http.ts';

// Found in review: the request log ran before the probes' handler, so every /healthz, /readyz and
// /metrics hit was logged and counted in switchyard_requests_total (method "none"): a gateway
// answering /readyz 503 while migrations ran fed the server-error alert, and probes diluted the
// request latency percentiles.
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(async () => {
  await h?.stop();
});

/** The sum of switchyard_requests_total over all its label sets. */
function requestsCounted(metrics: string): number {
  return metrics
    .split('\n')
    .filter((line) => line.startsWith('switchyard_requests_total{'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe('probes and scrapes on the gateway port', () => {
  it('are not API requests: not counted in the request metrics', async () => {
    const before = requestsCounted((await send('GET', `${h.url}/metrics`, { noVersion: true })).text);
    for (let i = 0; i < 3; i++) {
      expect((await send('GET', `${h.url}/healthz`, { noVersion: true })).status).toBe(200);
      expect((await send('GET', `${h.url}/readyz`, { noVersion: true })).status).toBe(200);
    }
    const after = requestsCounted((await send('GET', `${h.url}/metrics`, { noVersion: true })).text);
    expect(after).toBe(before);
  });
});
