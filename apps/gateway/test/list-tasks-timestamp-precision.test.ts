import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2ATestClient, type BindingName } from './support/a2a-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { taskOf, userMessage } from './support/messages.ts';

// Digest §7.4 rule 23: statusTimestampAfter keeps the tasks whose status timestamp is at or after
// it. Status timestamps are shown at millisecond precision, so a bound finer than that must agree
// with what the client sees: a task is listed exactly when its shown timestamp is ≥ the bound (a
// task shown as …58.531Z is before …58.5314Z, and not listed; it is at or after …58.5309Z).
let h: Harness;
const contextId = randomUUID();
let taskId: string;
/** The task's status timestamp as shown, e.g. `2026-12-01T05:49:58.531Z`. */
let shown: string;

beforeAll(async () => {
  // No worker: the task stays SUBMITTED, its status timestamp fixed.
  h = await startHarness({ worker: false });
  const client = new A2ATestClient('rest', `${h.url}/agents/acme/sleepy`, h.fixtures.keys.alice);
  const sent = await client.call('SendMessage', {
    message: userMessage('queued', { contextId }),
    configuration: { returnImmediately: true },
  });
  if (!sent.ok) throw new Error(sent.reason);
  taskId = taskOf(sent.value).id;
  const got = await client.call('GetTask', { id: taskId });
  if (!got.ok) throw new Error(got.reason);
  shown = got.value.status.timestamp ?? '';
  expect(shown).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
});
afterAll(async () => {
  await h?.stop();
});

/** `shown` (or the millisecond `shiftMs` from it) with `digits` appended to its fraction. */
function finer(digits: string, shiftMs = 0): string {
  const at = new Date(Date.parse(shown) + shiftMs).toISOString();
  return `${at.slice(0, -1)}${digits}Z`;
}

describe.each<BindingName>(['jsonrpc', 'rest'])('%s ListTasks statusTimestampAfter', (binding) => {
  const client = () => new A2ATestClient(binding, `${h.url}/agents/acme/sleepy`, h.fixtures.keys.alice);

  async function listedWith(statusTimestampAfter: string): Promise<string[]> {
    const reply = await client().call('ListTasks', { contextId, statusTimestampAfter });
    if (!reply.ok) throw new Error(`${reply.reason} ${reply.message}`);
    expect(reply.value.totalSize).toBe(reply.value.tasks.length);
    return reply.value.tasks.map((t) => t.id);
  }

  it('a task shown at …ms is listed for a bound at or before it, whatever the bound’s precision', async () => {
    expect(await listedWith(shown)).toEqual([taskId]);
    expect(await listedWith(finer('0'))).toEqual([taskId]);
    expect(await listedWith(finer('000000'))).toEqual([taskId]);
    // Within the millisecond before the shown one.
    expect(await listedWith(finer('9', -1))).toEqual([taskId]);
    expect(await listedWith(finer('999999', -1))).toEqual([taskId]);
  });

  it('a task shown at …ms is not listed for a bound after it, even by less than a millisecond', async () => {
    expect(await listedWith(finer('4'))).toEqual([]);
    expect(await listedWith(finer('000001'))).toEqual([]);
    expect(await listedWith(finer('999999'))).toEqual([]);
    expect(await listedWith(finer('', 1))).toEqual([]);
  });
});
