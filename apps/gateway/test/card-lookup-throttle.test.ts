import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type RunningGateway } from './support/harness.ts';
import { send } from './support/http.ts';

// Found in review: a public card URL takes any name without a credential, and each made-up name
// was a Postgres query with no limit. A name registered to nobody now counts as a failed lookup
// of the client's address, as a wrong API key does.
let h: Harness;
let gateway: RunningGateway;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  gateway = await h.startGateway({ AUTH_FAILURES_PER_ADDRESS_PER_SEC: '3' });
});
afterAll(async () => {
  await h?.stop();
});

const card = (agent: string) =>
  send('GET', `${gateway.url}/agents/acme/${agent}/.well-known/agent-card.json`);

describe('card lookups of made-up names from one address', () => {
  it('are refused with 429 past the failures allowed a second, and known cards are served again after', async () => {
    let statuses: number[] = [];
    for (let attempt = 0; attempt < 5 && !statuses.includes(429); attempt++) {
      // The throttle counts per calendar second: start at one's beginning, so that six lookups
      // done within 900 ms are in one window (started mid-second, they straddled two in CI).
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
      const began = performance.now();
      const startedAt = Date.now();
      statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await card(`made-up-${attempt}-${i}`)).status);
      // All in one second's window, or the count says nothing.
      if (performance.now() - began >= 900 || Math.floor(Date.now() / 1000) !== Math.floor(startedAt / 1000))
        statuses = [];
    }
    expect(statuses.slice(0, 3)).toEqual([404, 404, 404]);
    expect(statuses.slice(3)).toEqual([429, 429, 429]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await card('echo')).status).toBe(200);
  });

  // Found in review of the throttle: it counted every card request, so cached cards fetched at
  // once from one proxy address were refused, and a name asked again (its miss cached, no query)
  // counted as another failure.
  it('counts only the lookups that reach the store', async () => {
    expect((await card('echo')).status).toBe(200);
    const many = await Promise.all(Array.from({ length: 30 }, () => card('echo')));
    expect(many.map((r) => r.status)).toEqual(Array(30).fill(200));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again: number[] = [];
    for (let i = 0; i < 10; i++) again.push((await card('asked-again')).status);
    expect(again).toEqual(Array(10).fill(404));
  });
});
