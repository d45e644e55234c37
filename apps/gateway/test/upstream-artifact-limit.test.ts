import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { UPSTREAM_EXECUTOR } from '@switchyard/upstream';
import { A2ATestClient } from './support/a2a-client.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness.ts';
import { taskOf, userMessage } from './support/messages.ts';
import {
  loopbackUpstreamAgent,
  startUpstreamServer,
  type UpstreamServer,
} from './support/upstream-server.ts';

// Found in review: an upstream agent's task whose chunks pass our artifact limit fails here, but
// the run forwarded a cancel only when our task was canceled, so the upstream task ran on for
// nobody. Our task ending under the run is reason enough.
const { findAgent } = loopbackUpstreamAgent({ pollMinMs: 50, pollMaxMs: 200 });

let h: Harness;
let upstream: UpstreamServer;
beforeAll(async () => {
  h = await startHarness({
    env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' },
    findAgent,
    // About nine of the upstream's `entry n;` chunks.
    workerEngine: { taskMaxArtifactBytes: 200 },
  });
  upstream = await startUpstreamServer({ chunkDelayMs: 20 });
  const res = await fetch(`${h.url}/admin/v1/tenants/acme/agents/ledger`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ executor: UPSTREAM_EXECUTOR, settings: { cardUrl: upstream.cardUrl } }),
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await upstream?.stop();
  await h?.stop();
});

describe('an upstream task whose chunks pass our artifact limit', () => {
  it('fails our task and cancels the upstream task', async () => {
    const ledger = new A2ATestClient('jsonrpc', `${h.url}/agents/acme/ledger`, h.fixtures.keys.alice);
    const sent = await ledger.call('SendMessage', {
      message: userMessage('post 200'),
      configuration: { returnImmediately: true },
    });
    if (!sent.ok) throw new Error(sent.message);
    const id = taskOf(sent.value).id;
    const failed = await waitFor(
      async () => {
        const got = await ledger.call('GetTask', { id });
        return got.ok && got.value.status.state === TaskState.FAILED ? got.value : null;
      },
      { what: 'our task to fail at the limit' },
    );
    expect(JSON.stringify(failed.status.message)).toContain('limit of 200 bytes');
    await waitFor(() => upstream.canceled.length === 1, { what: 'the upstream task to be canceled' });
    expect(upstream.canceled[0]).toBe(upstream.tasksCreated.at(-1));
  });
});
