import type { Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StreamItem } from '@switchyard/engine';
import { TaskState, toV03StreamResult, unsupportedOperation } from '@switchyard/protocol';
import { silentLogger } from '@switchyard/telemetry';
import { waitFor } from '@switchyard/testing';
import { jsonRpcSseFormat, jsonRpcV03SseFormat, restSseFormat } from '../src/sse/binding-formats.ts';
import { streamSse } from '../src/sse/sse-stream.ts';
import { StreamRegistry } from '../src/sse/stream-registry.ts';
import { openSse } from './support/http.ts';

// The SSE writer on its own (digest §12 #16, brief §9): heartbeats, mid-stream errors, client
// disconnects, slow consumers and shutdown, with synthetic generators.
const item = (seq: number, text = 'x'): StreamItem => ({
  seq,
  response: {
    statusUpdate: {
      taskId: 't',
      contextId: 'c',
      status: {
        state: TaskState.WORKING,
        message: { messageId: `m${seq}`, role: 'ROLE_AGENT', parts: [{ text }] },
      },
    },
  },
});

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

async function serve(
  make: (signal: AbortSignal) => AsyncGenerator<StreamItem>,
  options: {
    heartbeatMs?: number;
    maxBufferBytes?: number;
    registry?: StreamRegistry;
    onEnd?: () => void;
    onStarted?: () => void;
  } = {},
): Promise<{ url: string; port: number }> {
  const app = express();
  app.get('/', async (_req, res) => {
    const stop = new AbortController();
    await streamSse(res, make(stop.signal), restSseFormat('v1.0.1'), stop, {
      heartbeatMs: options.heartbeatMs ?? 60_000,
      maxBufferBytes: options.maxBufferBytes ?? 1024 * 1024,
      registry: options.registry ?? new StreamRegistry(),
      log: () => silentLogger(),
      onEnd: options.onEnd ?? (() => undefined),
    });
    options.onStarted?.();
  });
  const listening = app.listen(0);
  server = listening;
  await new Promise((resolve) => listening.once('listening', resolve));
  const port = (listening.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/`, port };
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

describe('streamSse', () => {
  it('an error after the first event is sent as a final error event, then the stream closes', async () => {
    const { url } = await serve(async function* () {
      yield item(1);
      throw unsupportedOperation('gone');
    });
    const reply = await openSse('GET', url, { noVersion: true });
    expect(reply.events).toHaveLength(2);
    expect(reply.events[0]?.id).toBe('1');
    expect(reply.events[1]).toEqual({
      id: undefined,
      data: { error: expect.objectContaining({ code: 400, status: 'FAILED_PRECONDITION', message: 'gone' }) },
    });
  });

  it('an error before the first event is not streamed: it reaches the error handler', async () => {
    let ended = 0;
    const app = express();
    app.get('/', async (_req, res) => {
      const stop = new AbortController();
      // eslint-disable-next-line require-yield
      const failing = async function* (): AsyncGenerator<StreamItem> {
        throw unsupportedOperation('too late');
      };
      await streamSse(res, failing(), restSseFormat('v1.0.1'), stop, {
        heartbeatMs: 1000,
        maxBufferBytes: 1024,
        registry: new StreamRegistry(),
        log: () => silentLogger(),
        onEnd: () => ended++,
      }).catch(() => {
        res.status(400).json({ refused: true });
      });
    });
    const listening = app.listen(0);
    server = listening;
    await new Promise((resolve) => listening.once('listening', resolve));
    const reply = await fetch(`http://127.0.0.1:${(listening.address() as AddressInfo).port}/`);
    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual({ refused: true });
    expect(ended).toBe(1);
  });

  it('resolves once the stream has started, and says when it has ended, once', async () => {
    let started = false;
    let ended = 0;
    const { url } = await serve(
      async function* (signal) {
        yield item(1);
        await untilAborted(signal);
      },
      { onStarted: () => (started = true), onEnd: () => ended++ },
    );
    const controller = new AbortController();
    const reply = await fetch(url, { signal: controller.signal });
    expect(reply.status).toBe(200);
    // The handler's await is over while the stream is still open.
    await waitFor(() => started, { what: 'streamSse resolved' });
    expect(ended).toBe(0);
    controller.abort();
    await waitFor(() => ended > 0, { what: 'the stream ended' });
    expect(ended).toBe(1);
  });

  it('sends keep-alive comments and aborts the generator when the client disconnects', async () => {
    let finished = false;
    const { url } = await serve(
      async function* (signal) {
        try {
          yield item(1);
          await untilAborted(signal);
        } finally {
          finished = true;
        }
      },
      { heartbeatMs: 20 },
    );
    const controller = new AbortController();
    const response = await fetch(url, { signal: controller.signal });
    const reader = response.body?.getReader();
    let text = '';
    while (!text.includes(': keep-alive')) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    expect(text).toContain(': keep-alive\n\n');
    controller.abort();
    await waitFor(() => finished, { what: 'the generator to be closed' });
  });

  it('a client that stops reading is cut off with a "slow consumer" comment, memory bounded', async () => {
    let aborted = false;
    let produced = 0;
    const big = 'y'.repeat(64 * 1024);
    const { port } = await serve(
      async function* (signal) {
        signal.addEventListener('abort', () => (aborted = true));
        while (!signal.aborted && produced < 10_000) {
          produced += 1;
          yield item(produced, big);
          await new Promise((resolve) => setImmediate(resolve));
        }
      },
      { maxBufferBytes: 256 * 1024 },
    );
    const socket = net.connect(port, '127.0.0.1');
    socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    socket.pause(); // never read
    await waitFor(() => aborted, { what: 'the slow consumer to be cut off' });
    expect(produced).toBeLessThan(10_000);
    socket.destroy();
  });

  it('shutdown ends every open stream with a final comment', async () => {
    const registry = new StreamRegistry();
    const { url } = await serve(
      async function* (signal) {
        yield item(1);
        await untilAborted(signal);
      },
      { registry },
    );
    const pending = openSse('GET', url, { noVersion: true });
    await waitFor(() => registry.size === 1);
    registry.closeAll('server shutting down');
    const reply = await pending;
    expect(reply.events).toHaveLength(1);
    expect(reply.comments).toContain('server shutting down');
  });
});

describe('SSE event formats', () => {
  it('write what JSON.stringify of each binding shape writes, serializing a shared event once', () => {
    const shared = item(7, 'shared');
    const rest = restSseFormat({} as never);
    const rpc = jsonRpcSseFormat('req-1');
    const rpcNumber = jsonRpcSseFormat(42);
    const v03 = jsonRpcV03SseFormat(null);
    expect(rest.itemJson(shared)).toBe(JSON.stringify(shared.response));
    expect(rpc.itemJson(shared)).toBe(
      JSON.stringify({ jsonrpc: '2.0', id: 'req-1', result: shared.response }),
    );
    expect(rpcNumber.itemJson(shared)).toBe(
      JSON.stringify({ jsonrpc: '2.0', id: 42, result: shared.response }),
    );
    expect(v03.itemJson(shared)).toBe(
      JSON.stringify({ jsonrpc: '2.0', id: null, result: toV03StreamResult(shared.response) }),
    );
    // Another stream of the same event (same object) gets the same text from the cache.
    const spy = vi.spyOn(JSON, 'stringify');
    expect(restSseFormat({} as never).itemJson(shared)).toBe(JSON.stringify(shared.response));
    expect(spy).toHaveBeenCalledTimes(1); // only the expectation's own call above
    spy.mockRestore();
  });
});

describe('StreamRegistry keep-alives', () => {
  it('beats every stream of an interval from one timer, and stops a stream once it leaves', () => {
    vi.useFakeTimers();
    try {
      const registry = new StreamRegistry();
      const beats = { a: 0, b: 0, c: 0 };
      const stopA = registry.heartbeat(1000, () => beats.a++);
      const stopB = registry.heartbeat(1000, () => beats.b++);
      const stopC = registry.heartbeat(5000, () => beats.c++);
      expect(vi.getTimerCount()).toBe(2); // one per interval, not one per stream
      vi.advanceTimersByTime(1000);
      expect(beats).toEqual({ a: 1, b: 1, c: 0 });
      stopA();
      vi.advanceTimersByTime(4000);
      expect(beats).toEqual({ a: 1, b: 5, c: 1 });
      stopB();
      stopC();
      expect(vi.getTimerCount()).toBe(0);
      // A stream after the group emptied starts a new group.
      const stopD = registry.heartbeat(1000, () => beats.a++);
      vi.advanceTimersByTime(1000);
      expect(beats.a).toBe(2);
      stopD();
    } finally {
      vi.useRealTimers();
    }
  });
});
