import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleHarness, type ConsoleHarness } from './support/console-harness.ts';

// A live stream is authenticated when it opens, and a page may stay open for days: the stream
// must end when its session expires instead of sending task data to a signed-out browser, and say
// so, so the page goes to the login page rather than reconnecting.
let h: ConsoleHarness;

beforeAll(async () => {
  h = await startConsoleHarness();
});
afterAll(() => h.close());

/** A session cookie that expires `ms` from now (issued as if signed in a TTL ago, less `ms`). */
function cookieExpiringIn(ms: number): string {
  const { signer, config } = h.console.services;
  return `sy_console=${signer.issue(Date.now() - config.CONSOLE_SESSION_TTL_MS + ms).value}`;
}

/**
 * The whole stream, as the server ends it. The bound only turns "never ends" into a failure
 * instead of a hung test.
 */
async function wholeStream(path: string, cookie: string): Promise<string[]> {
  const res = await fetch(`${h.baseUrl}${path}`, {
    headers: { cookie },
    signal: AbortSignal.timeout(15_000),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  return [...text.matchAll(/^event: ([\w-]+)$/gm)].map((m) => m[1] ?? '');
}

describe('a live stream whose session expires', () => {
  // No worker: the task stays submitted, so nothing but the session can end its stream.
  it("ends the task stream with signed-out at the session's expiry", async () => {
    const task = await h.send('acme', 'echo', 'waiting for a worker');
    const events = await wholeStream(`/tasks/acme/${task.id}/stream?after=0&msg=-1`, cookieExpiringIn(3000));
    expect(events).toContain('entry'); // the stream was live before the session ran out
    expect(events.at(-1)).toBe('signed-out');
  });

  it("ends the threads view's stream with signed-out too", async () => {
    const contextId = `expiring-${crypto.randomUUID()}`;
    const task = await h.send('acme', 'echo', 'in a thread', { contextId });
    const events = await wholeStream(
      `/contexts/acme/${contextId}/stream?v=${task.id}.0.-1`,
      cookieExpiringIn(3000),
    );
    expect(events).toContain('entry');
    expect(events.at(-1)).toBe('signed-out');
  });
});
