import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/index.ts';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, log: createLogger({ name: 'test', destination }) };
}

// Found in review: redaction matched `*.token` one level down only, case-sensitively, and an
// error was logged with every property it carried: ioredis puts a failed AUTH's arguments (the
// Redis password) on `err.command`, and HTTP clients put the request's headers on `err.config`.
describe('log lines do not carry secrets', () => {
  it.each([
    ['at the top of the line', { token: 'S3CRET' }],
    ['three levels in', { delivery: { config: { authentication: { credentials: 'S3CRET' } } } }],
    ['under a capitalised Authorization header', { headers: { Authorization: 'Bearer S3CRET' } }],
    ['as an issued key', { key: { plaintext: 'S3CRET' } }],
    ['as a request API key header', { req: { headers: { 'x-api-key': 'S3CRET' } } }],
    ['as a webhook secret', { webhookSecret: 'S3CRET' }],
    ['in a connection URL of a logged config', { config: { DATABASE_URL: 'postgres://u:S3CRET@db/x' } }],
  ])('%s', (_where, fields) => {
    const { lines, log } = capture();
    log.info(fields, 'line');
    expect(lines[0]).not.toContain('S3CRET');
    expect(lines[0]).toContain('[redacted]');
  });

  it("in an error's Redis command, whose name stays", () => {
    const { lines, log } = capture();
    const err = Object.assign(new Error('WRONGPASS invalid username-password pair'), {
      command: { name: 'hello', args: ['3', 'AUTH', 'default', 'S3CRET'] },
    });
    log.warn({ err }, 'redis failed');
    expect(lines[0]).not.toContain('S3CRET');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      err: { message: 'WRONGPASS invalid username-password pair', command: { name: 'hello' } },
    });
  });

  it("in an HTTP client error's request, and in its cause", () => {
    const { lines, log } = capture();
    const cause = Object.assign(new Error('socket hang up'), {
      config: { headers: { Authorization: 'Bearer S3CRET' } },
    });
    const err = Object.assign(new Error('request failed', { cause }), {
      request: { headers: { 'x-api-key': 'S3CRET' } },
      status: 502,
    });
    log.error({ err }, 'call failed');
    expect(lines[0]).not.toContain('S3CRET');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      err: { message: expect.stringContaining('request failed'), status: 502 },
    });
  });
});
