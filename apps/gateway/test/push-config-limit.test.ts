import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { A2ATestClient, type BindingName, type Failure } from './support/a2a-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { taskOf, userMessage } from './support/messages.ts';
import { snapshotStore } from './security/store-snapshot.ts';

// README "Limits": at most 10 push notification configs per task. One more is InvalidParams (the
// spec names no error for it, digest §5.3) and changes nothing; an upsert of a registered id or
// URL is not one more.
const MAX = 10;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
});
afterAll(async () => {
  await h?.stop();
});

const hook = (name: string) => `http://127.0.0.1:9/${name}`;

/** The fields of the BadRequest detail of a failure, on either binding. */
function violatedFields(failure: Failure): string[] {
  const body = failure.body as { error?: { data?: unknown[]; details?: unknown[] } };
  const details = (body.error?.data ?? body.error?.details ?? []) as Array<Record<string, unknown>>;
  const badRequest = details.find((d) => String(d['@type']).endsWith('BadRequest'));
  return ((badRequest?.['fieldViolations'] ?? []) as Array<{ field: string }>).map((v) => v.field);
}

describe.each<BindingName>(['jsonrpc', 'rest'])('%s', (binding) => {
  const agent = (id: string) =>
    new A2ATestClient(binding, `${h.url}/agents/acme/${id}`, h.fixtures.keys.alice);

  /** A task of `agentId` with MAX configs, ids c0…c9 at hook c0…c9. */
  async function fullTask(agentId: string, text: string): Promise<string> {
    const client = agent(agentId);
    const sent = await client.call('SendMessage', { message: userMessage(text) });
    if (!sent.ok) throw new Error(sent.reason);
    const taskId = taskOf(sent.value).id;
    for (let i = 0; i < MAX; i++) {
      const created = await client.call('CreateTaskPushNotificationConfig', {
        taskId,
        id: `c${i}`,
        url: hook(`c${i}`),
      });
      if (!created.ok) throw new Error(`${created.reason} ${created.message}`);
    }
    return taskId;
  }

  it('an 11th config is InvalidParams naming the limit, and stores nothing', async () => {
    const echo = agent('echo');
    const taskId = await fullTask('echo', 'eleven');
    const before = await snapshotStore(h.db.pool);
    for (const extra of [{ id: 'c10' }, {}]) {
      const reply = await echo.call('CreateTaskPushNotificationConfig', {
        taskId,
        url: hook('new'),
        ...extra,
      });
      expect(reply.ok).toBe(false);
      if (reply.ok) return;
      expect(reply.reason).toBe('INVALID_PARAMS');
      expect(reply.message).toContain(`already has ${MAX} push notification configs`);
      expect(violatedFields(reply)).toEqual(['taskId']);
    }
    expect(await snapshotStore(h.db.pool)).toEqual(before);
  });

  it('at the limit, re-registering an id or an id-less known URL is an upsert', async () => {
    const echo = agent('echo');
    const taskId = await fullTask('echo', 'upserts');
    const byId = await echo.call('CreateTaskPushNotificationConfig', {
      taskId,
      id: 'c3',
      url: hook('moved'),
    });
    expect(byId.ok && byId.value).toMatchObject({ id: 'c3', url: hook('moved') });
    const byUrl = await echo.call('CreateTaskPushNotificationConfig', {
      taskId,
      url: hook('c5'),
      token: 't',
    });
    expect(byUrl.ok && byUrl.value).toMatchObject({ id: 'c5', url: hook('c5') });
    const listed = await echo.call('ListTaskPushNotificationConfigs', { taskId });
    expect(listed.ok && listed.value.configs).toHaveLength(MAX);
  });

  it('a continuation whose inline config would be the 11th is refused before it changes anything', async () => {
    const booking = agent('booking');
    const taskId = await fullTask('booking', 'book a flight to Oslo');
    const before = await snapshotStore(h.db.pool);
    const refused = await booking.call('SendMessage', {
      message: userMessage('2', { taskId }),
      configuration: { taskPushNotificationConfig: { url: hook('inline') } },
    });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.reason).toBe('INVALID_PARAMS');
    expect(violatedFields(refused)).toEqual(['configuration.taskPushNotificationConfig']);
    expect(await snapshotStore(h.db.pool)).toEqual(before);

    // Naming a webhook the task already has is not a new config: the answer goes through.
    const answered = await booking.call('SendMessage', {
      message: userMessage('2', { taskId }),
      configuration: { taskPushNotificationConfig: { url: hook('c1') } },
    });
    if (!answered.ok) throw new Error(`${answered.reason} ${answered.message}`);
    expect(taskOf(answered.value).status.state).toBe(TaskState.COMPLETED);
  });

  it('a placeholder secret moved to another URL is InvalidParams naming the field, and changes nothing', async () => {
    const echo = agent('echo');
    const sent = await echo.call('SendMessage', { message: userMessage('secrets') });
    if (!sent.ok) throw new Error(sent.reason);
    const taskId = taskOf(sent.value).id;
    const created = await echo.call('CreateTaskPushNotificationConfig', {
      taskId,
      id: 'owner',
      url: hook('owner'),
      token: 'owner-token',
    });
    if (!created.ok) throw new Error(created.reason);
    const got = await echo.call('GetTaskPushNotificationConfig', { taskId, id: 'owner' });
    if (!got.ok) throw new Error(got.reason);
    const read = got.value; // its token reads as the placeholder
    const before = await snapshotStore(h.db.pool);
    const moved = await echo.call('CreateTaskPushNotificationConfig', { ...read, url: hook('attacker') });
    expect(moved.ok).toBe(false);
    if (moved.ok) return;
    expect(moved.reason).toBe('INVALID_PARAMS');
    expect(violatedFields(moved)).toEqual(['token']);
    expect(await snapshotStore(h.db.pool)).toEqual(before);
    // Saved back where it was read from, it keeps the stored token.
    const saved = await echo.call('CreateTaskPushNotificationConfig', read);
    expect(saved.ok && saved.value).toEqual(read);

    // On a continuation's inline webhook as well.
    const booking = agent('booking');
    const asked = await booking.call('SendMessage', { message: userMessage('book a flight to Rome') });
    if (!asked.ok) throw new Error(asked.reason);
    const bookingTask = taskOf(asked.value).id;
    const inline = await booking.call('SendMessage', {
      message: userMessage('2', { taskId: bookingTask }),
      configuration: { taskPushNotificationConfig: { url: hook('inline'), token: read.token } },
    });
    expect(inline.ok).toBe(false);
    if (inline.ok) return;
    expect(inline.reason).toBe('INVALID_PARAMS');
    expect(violatedFields(inline)).toEqual(['configuration.taskPushNotificationConfig.token']);
    // And on a new task's webhook, where nothing stored could stand for it.
    const beforeFresh = await snapshotStore(h.db.pool);
    const fresh = await echo.call('SendMessage', {
      message: userMessage('new'),
      configuration: { taskPushNotificationConfig: { url: hook('fresh'), token: read.token } },
    });
    expect(!fresh.ok && violatedFields(fresh)).toEqual(['configuration.taskPushNotificationConfig.token']);
    expect(await snapshotStore(h.db.pool)).toEqual(beforeFresh);
    const still = await booking.call('GetTask', { id: bookingTask });
    expect(still.ok && still.value.status.state).toBe(TaskState.INPUT_REQUIRED);
  });
});
