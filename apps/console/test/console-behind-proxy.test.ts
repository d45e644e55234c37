import { request } from 'node:http';
import { createLogger } from '@switchyard/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConsoleConfig } from '../src/config.ts';
import { ADMIN_TOKEN, startConsoleHarness, type ConsoleHarness } from './support/console-harness.ts';

// Behind a reverse proxy that rewrites Host (nginx's default proxy_pass does) the browser's Origin
// names the public host, which only X-Forwarded-Host carries. With TRUST_PROXY the console believes
// the proxy, as the gateway does; without it, only the socket and the Host header count.
let trusting: ConsoleHarness;
let direct: ConsoleHarness;
const lines: Array<{ msg: string; ip?: string }> = [];

beforeAll(async () => {
  const log = createLogger({
    name: 'console',
    level: 'info',
    destination: { write: (line: string) => lines.push(JSON.parse(line) as { msg: string; ip?: string }) },
  });
  trusting = await startConsoleHarness({ TRUST_PROXY: 'loopback' }, log);
  direct = await startConsoleHarness();
});
afterAll(async () => {
  await trusting?.close();
  await direct?.close();
});

/** A login form as the proxy passes it on: Host rewritten, the browser's host and address forwarded. */
function proxiedLogin(base: string, origin: string): Promise<number> {
  const body = new URLSearchParams({ token: ADMIN_TOKEN }).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/login`,
      {
        method: 'POST',
        headers: {
          host: 'console-upstream:8090',
          origin,
          'x-forwarded-host': 'console.example.com',
          'x-forwarded-for': '203.0.113.7',
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the console behind a proxy (TRUST_PROXY)', () => {
  it('accepts a sign-in from the forwarded host and logs the forwarded client address', async () => {
    expect(await proxiedLogin(trusting.baseUrl, 'https://console.example.com')).toBe(303);
    expect(lines.find((l) => l.msg === 'console: signed in')?.ip).toBe('203.0.113.7');
  });

  it('still refuses a form from another origin', async () => {
    expect(await proxiedLogin(trusting.baseUrl, 'https://evil.example')).toBe(403);
  });

  it('without TRUST_PROXY, forwarded headers are not believed', async () => {
    expect(await proxiedLogin(direct.baseUrl, 'https://console.example.com')).toBe(403);
    expect(await proxiedLogin(direct.baseUrl, 'http://console-upstream:8090')).toBe(303);
  });

  it('refuses a TRUST_PROXY entry express could not read, naming it', () => {
    expect(() => loadConsoleConfig({ TRUST_PROXY: '10.0.0.0/8,garbage' })).toThrow(
      /TRUST_PROXY: must be a hop count, true, false, or a comma-separated list/,
    );
  });
});
