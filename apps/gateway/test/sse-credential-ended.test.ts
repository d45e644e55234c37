import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenedStream } from '@switchyard/engine';
import { TaskState } from '@switchyard/protocol';
import { silentLogger } from '@switchyard/telemetry';
import { waitFor } from '@switchyard/testing';
import { restSseFormat } from '../src/sse/binding-formats.ts';
import { streamSse } from '../src/sse/sse-stream.ts';
import { StreamRegistry } from '../src/sse/stream-registry.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness.ts';
import { openSse, send, type SseEvent, type SseReply } from './support/http.ts';
import { taskOf, userMessage } from './support/messages.ts';

// A stream outlives its request; when the credential that opened it stops working (an admin
// revokes the API key, or it expires) the stream ends while the task goes on. That is an error
// after the stream started: digest §12 #16 and the gateway README make it a final SSE event
// carrying the binding's error (JSON-RPC: an error response with the request's id; HTTP+JSON:
// `event: error` + google.rpc.Status), then the close. The error is Unauthenticated, what the
// credential's next request gets (HTTP 401; JSON-RPC defines no code for it, digest §5.3, so
// the -32000 of the gateway's JSON-RPC 401). The reason stays as a comment after it.
let h: Harness;
beforeAll(async () => {
  // No worker: the tasks stay live (SUBMITTED), their streams open until something ends them.
  h = await startHarness({ worker: false });
});
afterAll(async () => {
  await h?.stop();
});

type Binding = 'jsonrpc' | 'rest' | 'jsonrpc-0.3';
type Operation = 'SendStreamingMessage' | 'SubscribeToTask';

const base = `/agents/acme/sleepy`;

async function liveTask(): Promise<string> {
  const sent = await send('POST', `${h.url}${base}/rest/message:send`, {
    key: h.fixtures.keys.alice,
    body: { message: userMessage('stay live'), configuration: { returnImmediately: true } },
  });
  return taskOf(sent.body as never).id;
}

/** Opens the stream with `key`, calling `opened` at its first event; resolves once it ended. */
function openStream(
  binding: Binding,
  operation: Operation,
  key: string,
  taskId: string,
  requestId: string,
  opened: () => void,
): Promise<SseReply> {
  const onEvent = () => opened();
  const message = userMessage('stream with a doomed key');
  if (binding === 'rest') {
    return operation === 'SendStreamingMessage'
      ? openSse('POST', `${h.url}${base}/rest/message:stream`, { key, body: { message }, onEvent })
      : openSse('GET', `${h.url}${base}/rest/tasks/${taskId}:subscribe`, { key, onEvent });
  }
  if (binding === 'jsonrpc-0.3') {
    const params =
      operation === 'SendStreamingMessage'
        ? {
            message: {
              kind: 'message',
              messageId: randomUUID(),
              role: 'user',
              parts: [{ kind: 'text', text: 'x' }],
            },
          }
        : { id: taskId };
    const method = operation === 'SendStreamingMessage' ? 'message/stream' : 'tasks/resubscribe';
    return openSse('POST', `${h.url}${base}/rpc`, {
      key,
      noVersion: true,
      body: { jsonrpc: '2.0', id: requestId, method, params },
      onEvent,
    });
  }
  const params = operation === 'SendStreamingMessage' ? { message } : { id: taskId };
  return openSse('POST', `${h.url}${base}/rpc`, {
    key,
    body: { jsonrpc: '2.0', id: requestId, method: operation, params },
    onEvent,
  });
}

/** The stream's task: the one subscribed to, or the one the first event shows. */
function taskIdOf(binding: Binding, first: SseEvent | undefined): string {
  const data = first?.data as Record<string, unknown>;
  const result = (binding === 'rest' ? data : data['result']) as Record<string, unknown>;
  const task = (binding === 'jsonrpc-0.3' ? result : result['task']) as { id: string };
  return task.id;
}

function expectUnauthenticatedEnd(binding: Binding, reply: SseReply, requestId: string, reason: string) {
  expect(reply.status).toBe(200);
  expect(reply.events.length).toBeGreaterThanOrEqual(2);
  const last = reply.events.at(-1);
  if (binding === 'rest') {
    expect(last?.event).toBe('error');
    expect(last?.data).toMatchObject({
      error: {
        code: 401,
        status: 'UNAUTHENTICATED',
        details: [{ reason: 'UNAUTHENTICATED', domain: 'a2a-protocol.org' }],
      },
    });
  } else if (binding === 'jsonrpc') {
    expect(last?.event).toBeUndefined();
    expect(last?.data).toMatchObject({
      jsonrpc: '2.0',
      id: requestId,
      error: { code: -32000, data: [{ reason: 'UNAUTHENTICATED', domain: 'a2a-protocol.org' }] },
    });
  } else {
    expect(last?.data).toMatchObject({
      jsonrpc: '2.0',
      id: requestId,
      error: { code: -32000, data: { reason: 'UNAUTHENTICATED' } },
    });
  }
  expect(JSON.stringify(last?.data)).toContain(reason);
  // The event before it was an ordinary one: the error came after the stream started.
  expect(JSON.stringify(reply.events.at(-2)?.data)).not.toContain('UNAUTHENTICATED');
  expect(reply.comments).toContain(reason);
}

async function expectStillLive(taskId: string): Promise<void> {
  const got = await send('GET', `${h.url}${base}/rest/tasks/${taskId}`, { key: h.fixtures.keys.alice });
  expect(got.status).toBe(200);
  expect((got.body as { status: { state: string } }).status.state).toBe(TaskState.SUBMITTED);
}

describe.each<Binding>(['jsonrpc', 'rest', 'jsonrpc-0.3'])('%s', (binding) => {
  it.each<Operation>(['SendStreamingMessage', 'SubscribeToTask'])(
    '%s: revoking the key sends a final Unauthenticated error event, then closes',
    async (operation) => {
      const issued = await h.admin.createApiKey({ tenantId: 'acme', principal: 'alice', role: 'user' });
      const subscribed = operation === 'SubscribeToTask' ? await liveTask() : '';
      const requestId = `r-${randomUUID()}`;
      let opened = false;
      const stream = openStream(binding, operation, issued.plaintext, subscribed, requestId, () => {
        opened = true;
      });
      await waitFor(() => opened, { what: 'the stream open' });
      const revoked = await send('DELETE', `${h.url}/admin/v1/tenants/acme/api-keys/${issued.key.id}`, {
        noVersion: true,
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(revoked.status).toBe(200);
      const reply = await stream;
      expectUnauthenticatedEnd(binding, reply, requestId, 'credential revoked');
      await expectStillLive(taskIdOf(binding, reply.events[0]));
    },
  );

  it('SubscribeToTask: the key expiring sends a final Unauthenticated error event, then closes', async () => {
    const taskId = await liveTask();
    const issued = await h.admin.createApiKey({
      tenantId: 'acme',
      principal: 'alice',
      role: 'user',
      expiresAt: new Date(Date.now() + 2500),
    });
    const requestId = `r-${randomUUID()}`;
    const reply = await openStream(
      binding,
      'SubscribeToTask',
      issued.plaintext,
      taskId,
      requestId,
      () => undefined,
    );
    expectUnauthenticatedEnd(binding, reply, requestId, 'credential expired');
    await expectStillLive(taskId);
  });
});

describe('the SSE writer', () => {
  /** Serves one stream of `opened` on a slot reserved before `between` runs (the opening). */
  async function serveOne(opened: OpenedStream, registry: StreamRegistry, between: () => void) {
    const app = express();
    app.get('/', (_req, res) => {
      const slot = registry.reserve({ tenantId: 'acme', credentialId: 'key:a' });
      between();
      streamSse(res, opened, restSseFormat('v1.0.1'), {
        heartbeatMs: 60_000,
        maxBufferBytes: 1024 * 1024,
        registry,
        slot,
        log: { log: silentLogger() },
        onEnd: slot.release,
      });
    });
    const server = app.listen(0);
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      return await openSse('GET', url, { noVersion: true });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }

  const snapshot: OpenedStream = {
    first: {
      seq: 1,
      response: { task: { id: 't', contextId: 'c', status: { state: TaskState.SUBMITTED } } },
    },
    follow: () => () => undefined,
  };

  it('a key revoked while its stream opened gets the error event and not the first item', async () => {
    const registry = new StreamRegistry();
    const reply = await serveOne(snapshot, registry, () =>
      registry.closeOwnedBy({ credentialId: 'key:a' }, 'credential revoked'),
    );
    expect(reply.events).toHaveLength(1);
    expect(reply.events[0]).toMatchObject({ event: 'error', data: { error: { code: 401 } } });
    expect(reply.comments).toContain('credential revoked');
  });
});
