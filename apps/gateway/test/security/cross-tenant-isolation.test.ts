import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@switchyard/testing';
import { A2ATestClient, type BindingName, type Failure } from '../support/a2a-client.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { send } from '../support/http.ts';
import { taskOf, userMessage } from '../support/messages.ts';
import { countsOf, snapshotStore } from './store-snapshot.ts';
import { expectNoLeak } from './well-formed.ts';

// Issue 8, security suite: every operation on both bindings with another tenant's and another
// principal's ids answers TaskNotFound (digest §9 rule 4) and changes nothing in the store.
let h: Harness;
/** Alice's (acme) tasks in every interesting state, and a push config on each live one. */
const victim = { done: '', running: '', waiting: '', runningConfig: '', waitingConfig: '' };
/** Task id → its context id. */
const contexts = new Map<string, string>();
let aliceMessageId: string;

beforeAll(async () => {
  h = await startHarness({ env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
  const as = (agent: string) =>
    new A2ATestClient('rest', `${h.url}/agents/acme/${agent}`, h.fixtures.keys.alice);
  const must = <T>(o: { ok: true; value: T } | Failure): T => {
    if (!o.ok) throw new Error(`${o.reason} ${o.message}`);
    return o.value;
  };
  const doneMessage = userMessage('alice only');
  aliceMessageId = doneMessage.messageId;
  const done = taskOf(must(await as('echo').call('SendMessage', { message: doneMessage })));
  const running = taskOf(
    must(
      await as('sleepy').call('SendMessage', {
        message: userMessage('zzz'),
        configuration: { returnImmediately: true },
      }),
    ),
  );
  const waiting = taskOf(
    must(await as('booking').call('SendMessage', { message: userMessage('book a flight to Paris') })),
  );
  victim.done = done.id;
  victim.running = running.id;
  victim.waiting = waiting.id;
  for (const t of [done, running, waiting]) contexts.set(t.id, t.contextId ?? '');
  expect(must(await as('booking').call('GetTask', { id: victim.waiting })).status.state).toBe(
    'TASK_STATE_INPUT_REQUIRED',
  );
  victim.runningConfig =
    must(
      await as('sleepy').call('CreateTaskPushNotificationConfig', {
        taskId: victim.running,
        url: 'http://127.0.0.1:9/alice',
        token: 'alice-token',
      }),
    ).id ?? '';
  victim.waitingConfig =
    must(
      await as('booking').call('CreateTaskPushNotificationConfig', {
        taskId: victim.waiting,
        url: 'http://127.0.0.1:9/alice-booking',
      }),
    ).id ?? '';
  // The sleepy agent runs for minutes once WORKING: from then on the store holds still.
  await waitFor(async () => {
    const { rows } = await h.db.pool.query<{ state: string }>(
      'SELECT state FROM tasks WHERE tenant_id = $1 AND id = $2',
      ['acme', victim.running],
    );
    return rows[0]?.state === 'TASK_STATE_WORKING';
  });
});
afterAll(async () => {
  await new A2ATestClient('rest', `${h.url}/agents/acme/sleepy`, h.fixtures.keys.alice).call('CancelTask', {
    id: victim.running,
  });
  await h?.stop();
});

/** Someone who must not see alice's tasks, and the agent path they try them through. */
interface Intruder {
  who: string;
  key: () => string;
  /** agent id → URL path of the agent the intruder addresses. */
  agentPath: (agent: 'echo' | 'sleepy' | 'booking') => string;
  /** REST `/{tenant}` segment to use as well, if any. */
  tenantTwin?: string;
  /** JSON-RPC / REST `tenant` to put into the request, if any. */
  tenantParam?: string;
  /** HTTP status every refusal must carry (404 for REST TaskNotFound; JSON-RPC 200 unless routed away). */
  expectStatus: { jsonrpc: number; rest: number };
}

const intruders: Intruder[] = [
  {
    who: 'bob (same tenant, another principal) through the owning agents',
    key: () => h.fixtures.keys.bob,
    agentPath: (agent) => `acme/${agent}`,
    expectStatus: { jsonrpc: 200, rest: 404 },
  },
  {
    who: 'bob through the /acme tenant routes and a tenant param',
    key: () => h.fixtures.keys.bob,
    agentPath: (agent) => `acme/${agent}`,
    tenantTwin: 'acme',
    tenantParam: 'acme',
    expectStatus: { jsonrpc: 200, rest: 404 },
  },
  {
    who: 'carol (another tenant) through her own agent',
    key: () => h.fixtures.keys.carol,
    agentPath: () => 'globex/echo',
    expectStatus: { jsonrpc: 200, rest: 404 },
  },
  {
    who: "carol naming alice's tenant as a routing value",
    key: () => h.fixtures.keys.carol,
    agentPath: () => 'globex/echo',
    tenantTwin: 'acme',
    tenantParam: 'acme',
    expectStatus: { jsonrpc: 200, rest: 404 },
  },
  {
    who: "carol through alice's agents (answered like a missing agent)",
    key: () => h.fixtures.keys.carol,
    agentPath: (agent) => `acme/${agent}`,
    expectStatus: { jsonrpc: 404, rest: 404 },
  },
  {
    who: "carol through alice's agents and the /acme tenant routes",
    key: () => h.fixtures.keys.carol,
    agentPath: (agent) => `acme/${agent}`,
    tenantTwin: 'acme',
    expectStatus: { jsonrpc: 404, rest: 404 },
  },
  {
    who: 'alice herself through an agent that does not own the task',
    key: () => h.fixtures.keys.alice,
    agentPath: (agent) => (agent === 'booking' ? 'acme/echo' : 'acme/booking'),
    expectStatus: { jsonrpc: 200, rest: 404 },
  },
];

describe.each<BindingName>(['jsonrpc', 'rest'])('%s', (binding) => {
  describe.each(intruders)('$who', (intruder) => {
    const client = (agent: 'echo' | 'sleepy' | 'booking') =>
      new A2ATestClient(
        binding,
        `${h.url}/agents/${intruder.agentPath(agent)}`,
        intruder.key(),
        binding === 'rest' ? intruder.tenantTwin : undefined,
      );
    const tenant = intruder.tenantParam === undefined ? {} : { tenant: intruder.tenantParam };
    const expectNotFound = (outcome: { ok: boolean }, what: string) => {
      expect(outcome.ok, what).toBe(false);
      const f = outcome as Failure;
      expect(f.reason, `${what}: ${JSON.stringify(f.body)}`).toBe('TASK_NOT_FOUND');
      expect(f.status, what).toBe(intruder.expectStatus[binding]);
      expectNoLeak(JSON.stringify(f.body));
      // Nothing about the task beyond the id the intruder sent: no state, owner or context.
      const text = JSON.stringify(f.body);
      for (const secret of ['alice', ...contexts.values(), 'TASK_STATE_', 'Paris'])
        expect(text).not.toContain(secret);
    };

    it('every operation is TaskNotFound and the store is unchanged', async () => {
      const before = await snapshotStore(h.db.pool);
      const { done, running, waiting, runningConfig, waitingConfig } = victim;
      const echo = client('echo');
      const sleepy = client('sleepy');
      const booking = client('booking');

      for (const [c, id] of [
        [echo, done],
        [sleepy, running],
        [booking, waiting],
      ] as const) {
        expectNotFound(await c.call('GetTask', { id, ...tenant }), `GetTask ${id}`);
        expectNotFound(await c.call('GetTask', { id, historyLength: 10, ...tenant }), 'GetTask history');
        expectNotFound(await c.call('CancelTask', { id, ...tenant }), 'CancelTask');
        // The interrupted task is the dangerous one: a message would resume it.
        expectNotFound(
          await c.call('SendMessage', { message: userMessage('hijack', { taskId: id }), ...tenant }),
          'SendMessage',
        );
        expectNotFound(
          await c.stream('SendStreamingMessage', {
            message: userMessage('hijack stream', { taskId: id }),
            ...tenant,
          }),
          'SendStreamingMessage',
        );
        expectNotFound(await c.stream('SubscribeToTask', { id, ...tenant }, { stopAfter: 1 }), 'Subscribe');
        if (binding === 'rest')
          expectNotFound(
            await c.stream('SubscribeToTask', { id, ...tenant }, { stopAfter: 1, verb: 'GET' }),
            'Subscribe (GET)',
          );
        expectNotFound(
          await c.call('CreateTaskPushNotificationConfig', {
            taskId: id,
            url: 'http://127.0.0.1:9/evil',
            ...tenant,
          }),
          'CreatePushConfig',
        );
        expectNotFound(
          await c.call('ListTaskPushNotificationConfigs', { taskId: id, ...tenant }),
          'ListPush',
        );
      }
      for (const [c, taskId, id] of [
        [sleepy, running, runningConfig],
        [booking, waiting, waitingConfig],
      ] as const) {
        expectNotFound(
          await c.call('GetTaskPushNotificationConfig', { taskId, id, ...tenant }),
          'GetPushConfig',
        );
        expectNotFound(
          await c.call('DeleteTaskPushNotificationConfig', { taskId, id, ...tenant }),
          'DeletePushConfig',
        );
      }

      for (const [c, id] of [
        [echo, done],
        [sleepy, running],
        [booking, waiting],
      ] as const) {
        const listed = await c.call('ListTasks', { pageSize: 100, ...tenant });
        if (listed.ok) {
          expect(listed.value.tasks.map((t) => t.id)).not.toContain(id);
          const byContext = await c.call('ListTasks', { contextId: contexts.get(id), ...tenant });
          expect(byContext.ok && byContext.value.tasks).toEqual([]);
        } else {
          // Refused outright (another tenant's agent, or another tenant named): still nothing shown.
          expectNotFound(listed, 'ListTasks');
        }
      }

      const card = await echo.call('GetExtendedAgentCard', { ...tenant });
      if (intruder.key() === h.fixtures.keys.carol && intruder.tenantParam === 'acme') {
        expectNotFound(card, 'GetExtendedAgentCard of another tenant');
      } else if (card.ok) {
        // The caller's own agent card: never one of another tenant's.
        expect(card.value.supportedInterfaces[0]?.url).toContain(`/agents/${intruder.agentPath('echo')}/`);
      } else {
        expectNotFound(card, 'GetExtendedAgentCard');
      }

      const after = await snapshotStore(h.db.pool);
      expect(countsOf(after)).toEqual(countsOf(before));
      expect(after).toEqual(before);
    });
  });
});

describe("another principal's messageId", () => {
  it.each<BindingName>(['jsonrpc', 'rest'])(
    '%s: reusing it is refused without naming the task, and changes nothing',
    async (binding) => {
      const before = await snapshotStore(h.db.pool);
      const bob = new A2ATestClient(binding, `${h.url}/agents/acme/echo`, h.fixtures.keys.bob);
      const reply = await bob.call('SendMessage', {
        message: { ...userMessage('same id'), messageId: aliceMessageId },
      });
      expect(reply.ok).toBe(false);
      expect(JSON.stringify((reply as Failure).body)).not.toContain(victim.done);
      expect(await snapshotStore(h.db.pool)).toEqual(before);
    },
  );
});

describe('REST push-config paths with mixed ids', () => {
  it("alice's own config id under another of her tasks is TaskNotFound, and is not deleted", async () => {
    const before = await snapshotStore(h.db.pool);
    const base = `${h.url}/agents/acme/sleepy/rest/tasks`;
    // A task alice can see, but the config belongs to another task: nothing crosses tasks.
    const other = await send('POST', `${h.url}/agents/acme/sleepy/rest/message:send`, {
      key: h.fixtures.keys.alice,
      body: { message: userMessage('another'), configuration: { returnImmediately: true } },
    });
    const otherId = (other.body as { task: { id: string } }).task.id;
    const afterCreate = await snapshotStore(h.db.pool);
    const get = await send('GET', `${base}/${otherId}/pushNotificationConfigs/${victim.runningConfig}`, {
      key: h.fixtures.keys.alice,
    });
    expect(get.status).toBe(404);
    await send('DELETE', `${base}/${otherId}/pushNotificationConfigs/${victim.runningConfig}`, {
      key: h.fixtures.keys.alice,
    });
    const { rows } = await h.db.pool.query(
      'SELECT 1 FROM push_configs WHERE tenant_id = $1 AND task_id = $2 AND id = $3',
      ['acme', victim.running, victim.runningConfig],
    );
    expect(rows).toHaveLength(1);
    expect(countsOf(afterCreate)['tasks']).toBe((countsOf(before)['tasks'] ?? 0) + 1);
    await send('POST', `${base}/${otherId}:cancel`, { key: h.fixtures.keys.alice });
  });

  it('a random task id that does not exist anywhere reads exactly like a foreign one', async () => {
    const missing = await send('GET', `${h.url}/agents/acme/echo/rest/tasks/${randomUUID()}`, {
      key: h.fixtures.keys.bob,
    });
    const foreign = await send('GET', `${h.url}/agents/acme/echo/rest/tasks/${victim.done}`, {
      key: h.fixtures.keys.bob,
    });
    const strip = (body: unknown) => JSON.stringify(body).replaceAll(/[0-9a-f-]{36}/g, '<id>');
    expect(foreign.status).toBe(missing.status);
    expect(strip(foreign.body)).toBe(strip(missing.body));
  });
});
