import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import {
  INVALID_RESPONSE_MESSAGE,
  UNAVAILABLE_MESSAGE,
  UPSTREAM_EXECUTOR,
  upstreamMessageId,
} from '@switchyard/upstream';
import { A2ATestClient, type BindingName } from './support/a2a-client.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness.ts';
import { partsText, taskOf, userMessage } from './support/messages.ts';
import {
  loopbackUpstreamAgent,
  startUpstreamServer,
  type UpstreamServer,
} from './support/upstream-server.ts';

// Issue 9: an existing A2A agent (served by the official SDK) registered as an `a2a-upstream`
// agent gets Switchyard's durable tasks in front of it. The worker is its A2A client.
const { findAgent } = loopbackUpstreamAgent({ pollMinMs: 50, pollMaxMs: 200 });

let h: Harness;
const upstreams: UpstreamServer[] = [];
let broken: { url: string; mode: { value: 'garbage' | 'unavailable' }; stop(): Promise<void> };

beforeAll(async () => {
  h = await startHarness({
    env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' },
    findAgent,
    workerEngine: { maxAttempts: 2, retryBaseMs: 20, retryMaxMs: 50 },
  });
  broken = await startBrokenUpstream();
});
afterAll(async () => {
  for (const u of upstreams) await u.stop();
  await broken?.stop();
  await h?.stop();
});

async function admin(method: string, path: string, body?: unknown) {
  const res = await fetch(`${h.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Starts an SDK upstream and registers it as acme/{agentId}. */
async function register(
  agentId: string,
  options: Parameters<typeof startUpstreamServer>[0] = {},
  settings: Record<string, unknown> = {},
): Promise<UpstreamServer> {
  const upstream = await startUpstreamServer(options);
  upstreams.push(upstream);
  const res = await admin('PUT', `/tenants/acme/agents/${agentId}`, {
    executor: UPSTREAM_EXECUTOR,
    settings: { cardUrl: upstream.cardUrl, ...settings },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return upstream;
}

const client = (binding: BindingName, agentId: string) =>
  new A2ATestClient(binding, `${h.url}/agents/acme/${agentId}`, h.fixtures.keys.alice);

async function settled(binding: BindingName, agentId: string, id: string): Promise<Task> {
  let task: Task | undefined;
  await waitFor(
    async () => {
      const got = await client(binding, agentId).call('GetTask', { id });
      if (!got.ok) return false;
      task = got.value;
      return task.status.state !== TaskState.SUBMITTED && task.status.state !== TaskState.WORKING;
    },
    { what: `task ${id} to settle`, timeoutMs: 20_000 },
  );
  return task!;
}

describe('registering an upstream agent', () => {
  it("publishes our card with the upstream's skills and modes, and masks its credentials", async () => {
    await register('ledger', { bearer: 's3cret' }, { credentials: { scheme: 'bearer', token: 's3cret' } });
    const card = (await (await fetch(`${h.url}/agents/acme/ledger/.well-known/agent-card.json`)).json()) as {
      name: string;
      skills: Array<{ id: string }>;
      defaultInputModes: string[];
      supportedInterfaces: Array<{ url: string }>;
      capabilities: { streaming?: boolean };
    };
    expect(card.name).toBe('Upstream ledger agent');
    expect(card.skills.map((s) => s.id)).toEqual(['ledger']);
    expect(card.defaultInputModes).toEqual(['text/plain', 'application/json']);
    expect(card.supportedInterfaces.every((i) => i.url.startsWith(h.url))).toBe(true);
    expect(card.capabilities.streaming).toBe(true);
    const listed = await admin('GET', '/tenants/acme/agents');
    const ledger = (listed.body.agents as Array<{ id: string; settings: Record<string, unknown> }>).find(
      (a) => a.id === 'ledger',
    );
    expect(ledger?.settings).toMatchObject({ credentials: '********' });
    expect(JSON.stringify(listed.body)).not.toContain('s3cret');
  });

  it('refuses upstream URLs the SSRF rules forbid, and settings that are not an upstream', async () => {
    const metadata = await admin('PUT', '/tenants/acme/agents/evil', {
      executor: UPSTREAM_EXECUTOR,
      settings: { cardUrl: 'http://169.254.169.254/.well-known/agent-card.json' },
    });
    expect(metadata.status).toBe(400);
    expect(JSON.stringify(metadata.body)).toContain('settings.cardUrl');
    // Named as what it is: the upstream's card URL, not a webhook.
    expect(JSON.stringify(metadata.body)).toContain(
      'upstream card host 169.254.169.254 resolves to a non-public',
    );
    const missing = await admin('PUT', '/tenants/acme/agents/evil', {
      executor: UPSTREAM_EXECUTOR,
      settings: {},
    });
    expect(missing.status).toBe(400);
    const notACard = await admin('PUT', '/tenants/acme/agents/evil', {
      executor: UPSTREAM_EXECUTOR,
      settings: { cardUrl: `${h.url}/healthz` },
    });
    expect(notACard.status).toBe(400);
  });
});

describe.each(['1.0', '0.3'] as const)('a streaming %s upstream agent', (protocolVersion) => {
  const agentId = `stream-${protocolVersion.replace('.', '')}`;
  let upstream: UpstreamServer;
  beforeAll(async () => {
    upstream = await register(agentId, { protocolVersion });
  });

  it('streams chunked artifacts through our event log, one upstream task per task', async () => {
    const message = userMessage('chunks 4');
    const streamed = await client('jsonrpc', agentId).stream('SendStreamingMessage', { message });
    if (!streamed.ok) throw new Error(streamed.message);
    // The stream opens with a Task snapshot (which may already hold the first chunk), then deltas.
    const snapshot = streamed.events[0]?.response?.task;
    const chunks = streamed.events.flatMap((e) =>
      e.response?.artifactUpdate ? [e.response.artifactUpdate] : [],
    );
    const seen = [...(snapshot?.artifacts?.[0]?.parts ?? []), ...chunks.flatMap((c) => c.artifact.parts)];
    expect(seen.map((p) => partsText([p]))).toEqual(['entry 1;', 'entry 2;', 'entry 3;', 'entry 4;']);
    expect(chunks.at(-1)?.append).toBe(true);
    expect(chunks.at(-1)?.lastChunk).toBe(true);
    const last = streamed.events.at(-1)?.response?.statusUpdate;
    expect(last?.status.state).toBe(TaskState.COMPLETED);
    const task = await settled('jsonrpc', agentId, last!.taskId);
    expect(task.artifacts?.[0]?.parts).toHaveLength(4);
    expect(upstream.tasksCreated).toHaveLength(1);
    expect(upstream.messageIds).toEqual([upstreamMessageId(task.id, message.messageId)]);
  });

  it('continues the same upstream task after input-required', async () => {
    const before = upstream.tasksCreated.length;
    const asked = await client('rest', agentId).call('SendMessage', { message: userMessage('ask') });
    if (!asked.ok) throw new Error(asked.message);
    const task = taskOf(asked.value);
    expect(task.status.state).toBe(TaskState.INPUT_REQUIRED);
    expect(partsText(task.status.message?.parts)).toBe('Which ledger?');
    const answered = await client('rest', agentId).call('SendMessage', {
      message: userMessage('general', { taskId: task.id, contextId: task.contextId! }),
    });
    if (!answered.ok) throw new Error(answered.message);
    const done = taskOf(answered.value);
    expect(done.status.state).toBe(TaskState.COMPLETED);
    expect(partsText(done.artifacts?.[0]?.parts)).toBe('answer: general');
    expect(upstream.tasksCreated.length - before).toBe(1);
  });

  it('forwards CancelTask to the upstream task', async () => {
    const started = await client('jsonrpc', agentId).call('SendMessage', {
      message: userMessage('hold'),
      configuration: { returnImmediately: true },
    });
    if (!started.ok) throw new Error(started.message);
    const id = taskOf(started.value).id;
    await waitFor(async () => {
      const got = await client('jsonrpc', agentId).call('GetTask', { id });
      return got.ok && partsText(got.value.status.message?.parts) === 'holding';
    });
    const canceled = await client('jsonrpc', agentId).call('CancelTask', { id });
    if (!canceled.ok) throw new Error(canceled.message);
    expect(canceled.value.status.state).toBe(TaskState.CANCELED);
    await waitFor(() => upstream.canceled.length === 1, { what: 'the upstream to hear the cancel' });
    expect(upstream.canceled[0]).toBe(upstream.tasksCreated.at(-1));
  });

  it('a task canceled while it waits for input cancels the waiting upstream task too', async () => {
    const asked = await client('jsonrpc', agentId).call('SendMessage', { message: userMessage('ask') });
    if (!asked.ok) throw new Error(asked.message);
    const task = taskOf(asked.value);
    expect(task.status.state).toBe(TaskState.INPUT_REQUIRED);
    const upstreamTaskId = upstream.tasksCreated.at(-1);
    const canceled = await client('jsonrpc', agentId).call('CancelTask', { id: task.id });
    if (!canceled.ok) throw new Error(canceled.message);
    expect(canceled.value.status.state).toBe(TaskState.CANCELED);
    await waitFor(() => upstream.canceled.includes(upstreamTaskId!), {
      what: 'the waiting upstream task to be canceled',
    });
  });

  it('relays an upstream Message reply as ours', async () => {
    const replied = await client('jsonrpc', agentId).call('SendMessage', {
      message: userMessage('reply ping'),
    });
    if (!replied.ok) throw new Error(replied.message);
    expect(partsText(replied.value.message?.parts)).toBe('pong ping');
  });

  it("relays the upstream's FAILED status", async () => {
    const failed = await client('rest', agentId).call('SendMessage', { message: userMessage('fail') });
    if (!failed.ok) throw new Error(failed.message);
    expect(taskOf(failed.value).status.state).toBe(TaskState.FAILED);
    expect(partsText(taskOf(failed.value).status.message?.parts)).toBe('ledger closed');
  });
});

describe('a non-streaming upstream agent', () => {
  it('is followed by polling GetTask until its task ends', async () => {
    const upstream = await register('polled', { streaming: false });
    const sent = await client('rest', 'polled').call('SendMessage', {
      message: userMessage('chunks 3'),
      configuration: { returnImmediately: true },
    });
    if (!sent.ok) throw new Error(sent.message);
    const task = await settled('rest', 'polled', taskOf(sent.value).id);
    expect(task.status.state).toBe(TaskState.COMPLETED);
    expect(partsText(task.artifacts?.[0]?.parts)).toBe('entry 1;entry 2;entry 3;');
    expect(upstream.tasksCreated).toHaveLength(1);
  });
});

describe('upstream failures', () => {
  it('an answer that is not A2A ends the task FAILED and the blocking caller gets InvalidAgentResponse', async () => {
    broken.mode.value = 'garbage';
    await admin('PUT', '/tenants/acme/agents/garbled', {
      executor: UPSTREAM_EXECUTOR,
      settings: { cardUrl: `${broken.url}/.well-known/agent-card.json` },
    });
    for (const binding of ['jsonrpc', 'rest'] as const) {
      const sent = await client(binding, 'garbled').call('SendMessage', { message: userMessage('hello') });
      expect(sent.ok).toBe(false);
      if (sent.ok) continue;
      expect(sent.reason).toBe('INVALID_AGENT_RESPONSE');
      expect(sent.message).not.toMatch(/garbage|stack|at /);
    }
    const listed = await client('rest', 'garbled').call('ListTasks', {});
    if (!listed.ok) throw new Error(listed.message);
    for (const task of listed.value.tasks) {
      expect(task.status.state).toBe(TaskState.FAILED);
      expect(partsText(task.status.message?.parts)).toBe(INVALID_RESPONSE_MESSAGE);
    }
  });

  it('an unavailable upstream is retried with backoff, then the task fails with a safe message', async () => {
    broken.mode.value = 'unavailable';
    await admin('PUT', '/tenants/acme/agents/down', {
      executor: UPSTREAM_EXECUTOR,
      settings: { cardUrl: `${broken.url}/.well-known/agent-card.json` },
    });
    const sent = await client('rest', 'down').call('SendMessage', {
      message: userMessage('hello'),
      configuration: { returnImmediately: true },
    });
    if (!sent.ok) throw new Error(sent.message);
    const task = await settled('rest', 'down', taskOf(sent.value).id);
    expect(task.status.state).toBe(TaskState.FAILED);
    expect(partsText(task.status.message?.parts)).toBe(UNAVAILABLE_MESSAGE);
    const row = await h.db.pool.query<{ attempts: number; last_error: string }>(
      'select attempts, last_error from tasks where id = $1',
      [task.id],
    );
    expect(row.rows[0]?.attempts).toBe(2);
    expect(row.rows[0]?.last_error).toContain('503');
  });
});

/** An "agent" whose card is fine but whose JSON-RPC endpoint answers garbage or 503. */
async function startBrokenUpstream() {
  const app = express();
  const mode = { value: 'garbage' as 'garbage' | 'unavailable' };
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app.get('/.well-known/agent-card.json', (_req, res) => {
    res.json({
      name: 'Broken agent',
      description: 'Answers nonsense',
      version: '1.0.0',
      supportedInterfaces: [{ url: `${url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'nonsense', name: 'Nonsense', description: 'Says nothing useful', tags: [] }],
    });
  });
  app.post('/rpc', (_req, res) => {
    if (mode.value === 'unavailable') res.status(503).send('down for maintenance');
    else res.status(200).type('text/html').send('<html>garbage</html>');
  });
  return {
    url,
    mode,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
