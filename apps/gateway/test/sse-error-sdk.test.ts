import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendMessageRequest, type AgentCard, type StreamResponse as SdkStreamResponse } from '@a2a-js/sdk';
import { JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { OpenedStream } from '@switchyard/engine';
import { TaskState, unsupportedOperation } from '@switchyard/protocol';
import { silentLogger } from '@switchyard/telemetry';
import { waitFor } from '@switchyard/testing';
import { jsonRpcSseFormat, restSseFormat } from '../src/sse/binding-formats.ts';
import { streamSse, type SseFormat } from '../src/sse/sse-stream.ts';
import { StreamRegistry } from '../src/sse/stream-registry.ts';

// Digest §12 #16: an error in the middle of a stream reaches the official SDK (@a2a-js/sdk 1.3.0)
// as an A2A error on both bindings, not as an event it reads past. The SSE writer runs on its own
// with a synthetic stream (one status update, then the error), at the paths the SDK calls.
const failingStream = (): OpenedStream => ({
  first: {
    seq: 1,
    response: {
      statusUpdate: { taskId: 't', contextId: 'c', status: { state: TaskState.WORKING } },
    },
  },
  follow: (sink) => {
    setImmediate(() => sink.end(unsupportedOperation('the agent went away')));
    return () => undefined;
  },
});

/** One status update, then nothing: the stream stays open until the gateway cuts it. */
const openStream = (): OpenedStream => ({ ...failingStream(), follow: () => () => undefined });

/** The registry the gateway's shutdown closes every stream through (closeAll); one per test. */
let shuttingDown = new StreamRegistry();

function write(
  res: express.Response,
  format: SseFormat,
  stream = failingStream(),
  registry = new StreamRegistry(),
): void {
  streamSse(res, stream, format, {
    heartbeatMs: 60_000,
    maxBufferBytes: 1024 * 1024,
    registry,
    slot: registry.reserve({ tenantId: 'acme', credentialId: 'key:k1' }),
    log: { log: silentLogger() },
    onEnd: () => undefined,
  });
}

let server: Server;
let base: string;
beforeAll(async () => {
  const app = express();
  app.post('/rest/message:stream', (_req, res) => write(res, restSseFormat('v1.0.1')));
  app.post('/shutdown/rest/message:stream', (_req, res) =>
    write(res, restSseFormat('v1.0.1'), openStream(), shuttingDown),
  );
  app.post('/shutdown/rpc', express.json(), (req, res) => {
    write(res, jsonRpcSseFormat((req.body as { id: string | number }).id), openStream(), shuttingDown);
  });
  app.post('/rpc', express.json(), (req, res) => {
    write(res, jsonRpcSseFormat((req.body as { id: string | number }).id));
  });
  server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const card = {} as AgentCard; // the factories read it only for the 0.3 compatibility switch
const request = () =>
  SendMessageRequest.fromJSON({
    message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'x' }] },
  });

/** Reads the stream to its end; returns what arrived and what it threw. */
async function drain(stream: AsyncGenerator<SdkStreamResponse>) {
  const seen: SdkStreamResponse[] = [];
  try {
    for await (const event of stream) seen.push(event);
  } catch (err) {
    return { seen, err };
  }
  return { seen, err: undefined };
}

describe('@a2a-js/sdk on a stream that fails after its first event', () => {
  it('HTTP+JSON: RestTransport raises the A2A error from the `error` event', async () => {
    const transport = await new RestTransportFactory().create(`${base}/rest`, card);
    const { seen, err } = await drain(transport.sendMessageStream(request()));
    expect(seen.map((e) => e.payload?.$case)).toEqual(['statusUpdate']);
    expect(err).toBeInstanceOf(UnsupportedOperationError);
    expect((err as Error).message).toBe('the agent went away');
  });

  it('JSON-RPC: JsonRpcTransport raises with the A2A error as its cause', async () => {
    const transport = await new JsonRpcTransportFactory().create(`${base}/rpc`, card);
    const { seen, err } = await drain(transport.sendMessageStream(request()));
    expect(seen.map((e) => e.payload?.$case)).toEqual(['statusUpdate']);
    expect((err as Error).cause).toBeInstanceOf(UnsupportedOperationError);
  });
});

// A stream the gateway cuts while the task goes on (its shutdown, a client too slow) must not end
// like a finished one: the SDK returns normally at the end of the response, and its caller never
// learns that the task went on. The Unavailable error event makes it raise, so the caller resumes.
describe('@a2a-js/sdk on a stream cut by the gateway shutting down', () => {
  it.each([
    ['HTTP+JSON', () => new RestTransportFactory().create(`${base}/shutdown/rest`, card)],
    ['JSON-RPC', () => new JsonRpcTransportFactory().create(`${base}/shutdown/rpc`, card)],
  ])('%s: the SDK raises instead of ending as if the task were done', async (_binding, create) => {
    shuttingDown = new StreamRegistry();
    const transport = await create();
    const reading = drain(transport.sendMessageStream(request()));
    await waitFor(() => shuttingDown.size === 1, { what: 'the stream to open' });
    shuttingDown.closeAll('server shutting down');
    const { seen, err } = await reading;
    expect(seen.map((e) => e.payload?.$case)).toEqual(['statusUpdate']);
    expect(err).toBeInstanceOf(Error);
    const message = `${(err as Error).message} ${String((err as Error).cause ?? '')}`;
    expect(message).toContain('interrupted');
  });
});
