import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { alice, mallory, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// Found in audit: disabling a tenant stopped its credentials, but its queued tasks still ran (40
// of them, after the disable) and took worker slots. Now its work waits until it is enabled.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
});
afterAll(() => p.close());

async function queued(caller: typeof alice, tenantId: string): Promise<string> {
  const sent = await p.service.send(caller, (await p.admin.getAgent(tenantId, 'echo'))!, {
    message: userMessage('work'),
    configuration: { returnImmediately: true },
  });
  if (!('task' in sent)) throw new Error('expected a task');
  return sent.task.id;
}

const stateOf = async (tenantId: string, id: string) => (await p.store.getTaskRecord(tenantId, id))?.state;

describe('a disabled tenant', () => {
  it('has its queued work wait, unclaimed, while other tenants run; enabled, it runs', async () => {
    await p.admin.setTenantDisabled('evil', true);
    const held = await queued(mallory, 'evil');
    const other = await queued(alice, 'acme');
    // Found in review: a worker trusted its cached "disabled" read for its whole TTL, so the
    // backlog the reaper dispatched at the enabling was turned away again until the read expired.
    // With a TTL far past this test's wait, the task runs only if a refusal re-reads the tenant.
    p.startWorker({ tenantStatusTtlMs: 10 * 60_000 });
    await waitFor(async () => (await stateOf('acme', other)) === TaskState.COMPLETED, {
      what: 'the other tenant’s task to run',
    });
    // Past the dispatch grace and several reaper sweeps (fixture: 1 s, 300 ms): still waiting.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await stateOf('evil', held)).toBe(TaskState.SUBMITTED);
    expect((await p.store.findDispatchable(0, 1000)).tasks.map((t) => t.taskId)).not.toContain(held);
    await p.admin.setTenantDisabled('evil', false);
    await waitFor(async () => (await stateOf('evil', held)) === TaskState.COMPLETED, {
      what: 'the task to run once its tenant is enabled',
      timeoutMs: 20_000,
    });
  });
});
