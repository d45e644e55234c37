import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { isTerminal, TaskState } from '@switchyard/protocol';
import { startProcess, waitFor, type RunningProcess } from '@switchyard/testing';
import { UPSTREAM_EXECUTOR, upstreamMessageId } from '@switchyard/upstream';
import { A2ATestClient } from './support/a2a-client.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness.ts';
import { partsText, taskOf, userMessage } from './support/messages.ts';
import { startUpstreamServer, type UpstreamServer } from './support/upstream-server.ts';

// Issue 9: a real worker process running an upstream task is killed mid-stream. The replacement
// worker must not start the work twice upstream: it reads the upstream task, adds the chunks it
// lacks, resubscribes and finishes. The upstream sees one task and one message.
const CHUNKS = 12;
let h: Harness;
let upstream: UpstreamServer;
const procs: RunningProcess[] = [];

function startWorker(id: string): RunningProcess {
  const proc = startProcess('apps/worker/src/main.ts', {
    DATABASE_URL: h.db.url,
    REDIS_URL: h.redis.url,
    SWITCHYARD_REDIS_PREFIX: h.redis.prefix,
    SWITCHYARD_SECRET_KEY: 'test-secret-key-0123456789',
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    LOG_LEVEL: 'warn',
    LEASE_MS: '1500',
    REAPER_INTERVAL_MS: '300',
    WORKER_OPS_PORT: '0',
    SHUTDOWN_GRACE_MS: '500',
    WORKER_ID: id,
  });
  procs.push(proc);
  return proc;
}

beforeAll(async () => {
  h = await startHarness({ worker: false, env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
  upstream = await startUpstreamServer({ chunkDelayMs: 250 });
  const res = await fetch(`${h.url}/admin/v1/tenants/acme/agents/ledger`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ executor: UPSTREAM_EXECUTOR, settings: { cardUrl: upstream.cardUrl } }),
  });
  expect(res.status).toBe(200);
});
afterEach(async () => {
  for (const proc of procs.splice(0)) {
    proc.signal('SIGKILL');
    await proc.exited;
  }
});
afterAll(async () => {
  await upstream?.stop();
  await h?.stop();
});

it('a worker killed mid-task: the replacement carries on the same upstream task, every chunk once', async () => {
  const client = new A2ATestClient('jsonrpc', `${h.url}/agents/acme/ledger`, h.fixtures.keys.alice);
  const worker = startWorker('worker-a');
  const message = userMessage(`chunks ${CHUNKS}`);
  const sent = await client.call('SendMessage', { message, configuration: { returnImmediately: true } });
  if (!sent.ok) throw new Error(sent.message);
  const id = taskOf(sent.value).id;
  await waitFor(
    async () => {
      const rec = await h.store.getTaskRecord('acme', id);
      const got = await client.call('GetTask', { id });
      return (
        rec?.leaseOwner?.startsWith('worker-a/') &&
        got.ok &&
        (got.value.artifacts?.[0]?.parts.length ?? 0) >= 3
      );
    },
    { timeoutMs: 30_000, what: 'worker-a to record three chunks' },
  );
  worker.signal('SIGKILL');
  await worker.exited;
  startWorker('worker-b');
  const final = await waitFor(
    async () => {
      const got = await client.call('GetTask', { id });
      return got.ok && isTerminal(got.value.status.state) && got.value;
    },
    { timeoutMs: 60_000, what: 'the task to end' },
  );
  expect(final.status.state).toBe(TaskState.COMPLETED);
  const parts = final.artifacts?.[0]?.parts.map((p) => partsText([p]));
  expect(parts).toEqual(Array.from({ length: CHUNKS }, (_, i) => `entry ${i + 1};`));
  const record = await h.store.getTaskRecord('acme', id);
  expect(record?.attempts).toBe(2);
  expect(upstream.tasksCreated).toHaveLength(1);
  expect(upstream.messageIds).toEqual([upstreamMessageId(id, message.messageId)]);
});
