import net from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@switchyard/telemetry';
import { drainTimeoutFor, replyDrainDeadline, type DrainDeadline } from '../src/http/reply-drain.ts';

// Found in review: a client that asked for a large reply and never read it kept the reply's unsent
// bytes in the gateway's memory for as long as it kept its connection (no server timeout covers a
// socket that stops reading once its request is in).
const REPLY_BYTES = 16 * 1024 * 1024;
let server: Server | undefined;
const lines: string[] = [];
const replies: { sentWhole: boolean }[] = [];

/** Serves a large reply; `replies` gets each reply as it ends, whether sent whole or cut. */
async function serveLargeReplies(deadline: DrainDeadline): Promise<number> {
  const log = createLogger({
    name: 'test',
    level: 'warn',
    destination: { write: (l: string) => lines.push(l) },
  });
  const app = express();
  app.use(replyDrainDeadline(() => log, deadline));
  app.get('/large', (_req, res) => {
    res.once('close', () => replies.push({ sentWhole: res.writableFinished }));
    res.end(Buffer.alloc(REPLY_BYTES, 'a'));
  });
  server = app.listen(0);
  await new Promise((resolve) => server!.once('listening', resolve));
  return (server.address() as AddressInfo).port;
}

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  lines.length = 0;
  replies.length = 0;
});

function ask(port: number): net.Socket {
  const socket = net.connect(port, '127.0.0.1');
  socket.write('GET /large HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  return socket;
}

/** Bytes read until the reply is whole (then the client hangs up) or the server cuts it. */
function readAll(socket: net.Socket): Promise<number> {
  let received = 0;
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > REPLY_BYTES) socket.end();
  });
  socket.on('error', () => undefined);
  return new Promise((resolve) => socket.once('close', () => resolve(received)));
}

describe('a reply its client does not read', () => {
  it('is cut once the drain deadline passes, and the cut is logged', async () => {
    const socket = ask(await serveLargeReplies({ drainTimeoutMs: 100, minBytesPerSecond: 1e12 }));
    socket.pause();
    await expect.poll(() => replies, { timeout: 10_000 }).toEqual([{ sentWhole: false }]);
    expect(lines.some((l) => l.includes('client did not read its reply'))).toBe(true);
    // The client, reading now, gets what the kernel held and then the end of its connection.
    const received = readAll(socket);
    socket.resume();
    expect(await received).toBeLessThan(REPLY_BYTES);
  });

  it('is read whole by a client that reads it', async () => {
    const socket = ask(await serveLargeReplies({}));
    expect(await readAll(socket)).toBeGreaterThan(REPLY_BYTES);
    expect(replies).toEqual([{ sentWhole: true }]);
    expect(lines).toEqual([]);
  });

  it('gets longer to read a large reply, at the slowest allowed rate', () => {
    expect(drainTimeoutFor(2_000)).toBe(30_000);
    expect(drainTimeoutFor(16 * 1024 * 1024)).toBe(512_000);
  });
});
