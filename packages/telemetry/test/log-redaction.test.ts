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

// Found in review of the scrubbing serializer: it walked every object it met, so a Date, URL or
// Buffer in an error came out as {} or a key per byte, a throwing getter threw out of the log
// call, and an upstream response lost its status.
describe('a logged error keeps what is not a secret', () => {
  it('logs dates, URLs and buffers as themselves, and a response by its status', () => {
    const { lines, log } = capture();
    const err = Object.assign(new Error('upstream failed'), {
      at: new Date('2026-01-02T03:04:05.000Z'),
      url: new URL('https://agent.example/a2a'),
      bytes: Buffer.from('hi'),
      response: { status: 503, headers: { 'set-cookie': 'session=S3CRET' }, body: 'S3CRET' },
    });
    log.error({ err }, 'failed');
    expect(lines[0]).not.toContain('S3CRET');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      err: {
        at: '2026-01-02T03:04:05.000Z',
        url: 'https://agent.example/a2a',
        bytes: { type: 'Buffer', data: [104, 105] },
        response: { status: 503 },
      },
    });
  });

  it('survives a property whose getter throws', () => {
    const { lines, log } = capture();
    const hostile = {};
    Object.defineProperty(hostile, 'boom', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    const err = Object.assign(new Error('odd'), { hostile });
    expect(() => log.warn({ err, extra: hostile }, 'odd')).not.toThrow();
    expect(lines).toHaveLength(1);
  });
});
