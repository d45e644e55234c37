import { createQueueKeys } from '@switchyard/queue';
import { waitFor } from '@switchyard/testing';
import { Webhook } from 'standardwebhooks';
import { silentLogger } from '@switchyard/telemetry';
import { describe, expect, it } from 'vitest';
import { deliver, LAPSED_CLAIMS_ALLOWED, type DeliverDeps } from '../src/deliver.ts';
import {
  appendEvents,
  createTask,
  deliveriesOf,
  eventFor,
  newTenant,
  TEST_SETTINGS,
  usePusherSuite,
} from './pusher-fixtures.ts';

const suite = usePusherSuite();
const { scope } = suite;

describe('a delivery (digest §8: POST one StreamResponse)', () => {
  it('posts the bare StreamResponse as application/a2a+json with auth, token and a verifiable Standard Webhooks signature', async () => {
    const { tenantId, webhookSecret } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, {
      id: 'hook',
      url: `${suite.receiver.origin}/a2a/hook`,
      token: 'tok-123',
      authentication: { scheme: 'Bearer', credentials: 'cred-456' },
    });
    await appendEvents(suite.env, tenantId, task, 1);

    const results = await scope.pusher().deliverOnce();

    expect(results).toEqual([{ outcome: 'delivered', status: 204 }]);
    const [req] = suite.receiver.requests;
    expect(suite.receiver.requests).toHaveLength(1);
    expect(req!.path).toBe('/a2a/hook');
    expect(req!.headers['content-type']).toBe('application/a2a+json');
    expect(req!.headers.authorization).toBe('Bearer cred-456');
    expect(req!.headers['x-a2a-notification-token']).toBe('tok-123');
    expect(req!.headers['user-agent']).toBe('Switchyard-Pusher');
    expect(req!.headers['webhook-id']).toBe(`${task.taskId}.hook.1`);
    const headers = { ...req!.headers } as Record<string, string>;
    const verified = new Webhook(webhookSecret).verify(req!.body, headers);
    // Event 1 is the task snapshot; no JSON-RPC envelope, no wrapper: exactly one oneof member.
    expect(Object.keys(verified as object)).toEqual(['task']);
    expect((verified as { task: { id: string } }).task.id).toBe(task.taskId);
  });

  it('a config id with characters no header may carry is percent-encoded in webhook-id, and delivered', async () => {
    const { tenantId, webhookSecret } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, {
      id: 'hook 日本\u0001',
      url: `${suite.receiver.origin}/x`,
    });
    expect(await scope.pusher().deliverOnce()).toEqual([{ outcome: 'delivered', status: 204 }]);
    const [req] = suite.receiver.requests;
    expect(req!.headers['webhook-id']).toBe(`${task.taskId}.hook%20%E6%97%A5%E6%9C%AC%01.1`);
    expect(() =>
      new Webhook(webhookSecret).verify(req!.body, { ...req!.headers } as Record<string, string>),
    ).not.toThrow();
  });

  it('signs with the tenant secret only: another secret does not verify', async () => {
    const { tenantId } = await newTenant(suite.env);
    const other = await newTenant(suite.env);
    await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    await scope.pusher().deliverOnce();
    const [req] = suite.receiver.requests;
    expect(() =>
      new Webhook(other.webhookSecret).verify(req!.body, { ...req!.headers } as Record<string, string>),
    ).toThrow();
  });

  it('sends no Authorization or token header when the config has none', async () => {
    const { tenantId } = await newTenant(suite.env);
    await createTask(suite.env, tenantId, { id: 'plain', url: `${suite.receiver.origin}/plain` });
    await scope.pusher().deliverOnce();
    const [req] = suite.receiver.requests;
    expect(req!.headers.authorization).toBeUndefined();
    expect(req!.headers['x-a2a-notification-token']).toBeUndefined();
  });

  it('refuses a header value with a line break (no header injection) and keeps the secret out of the error', async () => {
    const { tenantId } = await newTenant(suite.env);
    await createTask(suite.env, tenantId, {
      id: 'hook',
      url: `${suite.receiver.origin}/x`,
      token: 'tok-secret\r\nX-Evil: 1',
    });
    const [result] = await scope.pusher().deliverOnce();
    expect(result).toMatchObject({
      outcome: 'retry',
      error: expect.stringContaining('invalid x-a2a-notification-token header'),
    });
    expect(JSON.stringify(result)).not.toContain('tok-secret');
    expect(suite.receiver.requests).toEqual([]);
  });

  it('records the receiver status and marks the delivery delivered', async () => {
    const { tenantId } = await newTenant(suite.env);
    suite.receiver.respond = () => ({ status: 200 });
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    await scope.pusher().deliverOnce();
    const [row] = await deliveriesOf(suite.env, tenantId, task.taskId);
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 200, lockedBy: null });
    expect(row!.deliveredAt).toBeInstanceOf(Date);
  });

  it('wakes on the Redis push channel without waiting for its poll', async () => {
    const { tenantId } = await newTenant(suite.env);
    // A poll far longer than the wait below: only the hint can make the delivery go out in time.
    const pusher = scope.pusher({ pollMs: 60_000 });
    await pusher.start();
    await waitFor(() => pusher.state === 'running');
    // The loop's first claim ran on start and found nothing; now it waits on the channel.
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    await appendEvents(suite.env, tenantId, task, 2);
    const publisher = scope.redis.connect();
    await publisher.publish(createQueueKeys(scope.redis.prefix).pushChannel, '1');
    await waitFor(() => suite.receiver.requests.length === 3, {
      timeoutMs: 10_000,
      what: 'three deliveries after one hint',
    });
    const bodies = suite.receiver.requests.map((r) => JSON.parse(r.body) as unknown);
    expect(bodies.slice(1)).toEqual([
      eventFor(task.taskId, task.contextId, 2),
      eventFor(task.taskId, task.contextId, 3),
    ]);
  });

  it('reports readiness: Postgres, migrations, Redis and the loop', async () => {
    const pusher = scope.pusher();
    expect((await pusher.ready()).running).toBe(false);
    await pusher.start();
    await waitFor(async () => Object.values(await pusher.ready()).every(Boolean), { what: 'ready' });
    const metrics = await pusher.metrics();
    expect(metrics.body).toContain('switchyard_push_pending');
  });
});

describe('a claim too old to send', () => {
  it('is left to lapse, never sent: a pusher frozen past its lock must not send a stale event', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/stale` });
    await appendEvents(suite.env, tenantId, task, 1);
    const pusher = scope.pusher();
    const [claimed] = await pusher.outbox.claimDueDeliveries({
      workerId: pusher.workerId,
      limit: 1,
      lockMs: 60_000,
    });
    // As if the process had been stopped between its claim and the send until the deadline passed.
    const result = await deliver(claimed!, { log: silentLogger() } as DeliverDeps, Date.now() - 1);
    expect(result).toEqual({ outcome: 'abandoned', reason: 'claim too old' });
    expect(suite.receiver.requests.filter((r) => r.path === '/stale')).toEqual([]);
    expect((await deliveriesOf(suite.env, tenantId, task.taskId))[0]).toMatchObject({ status: 'pending' });
  });

  it('is not sent when reading the task for a 0.3 receiver took it past the deadline', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, {
      id: 'hook',
      url: `${suite.receiver.origin}/slow-read`,
    });
    await appendEvents(suite.env, tenantId, task, 1);
    const pusher = scope.pusher();
    const [claimed] = await pusher.outbox.claimDueDeliveries({
      workerId: pusher.workerId,
      limit: 1,
      lockMs: 60_000,
    });
    const sendBy = Date.now() + 50;
    const deps = {
      log: silentLogger(),
      retry: TEST_SETTINGS.retry,
      // Postgres slow to answer: the read ends after the last moment a POST could still finish
      // inside the lock.
      loadTask: async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return null;
      },
    } as Partial<DeliverDeps> as DeliverDeps;
    const result = await deliver(
      { ...claimed!, config: { ...claimed!.config, wireVersion: '0.3' } },
      deps,
      sendBy,
    );
    expect(result).toEqual({ outcome: 'abandoned', reason: 'claim too old' });
    expect(suite.receiver.requests.filter((r) => r.path === '/slow-read')).toEqual([]);
    expect((await deliveriesOf(suite.env, tenantId, task.taskId))[0]).toMatchObject({ status: 'pending' });
  });
});

describe('a delivery whose claims keep lapsing', () => {
  it('is dead-lettered unsent once its claims pass the attempt limit and a few lapses more', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, {
      id: 'hook',
      url: `${suite.receiver.origin}/poison`,
    });
    await appendEvents(suite.env, tenantId, task, 1);
    // Its earlier claims all lapsed (every pusher that took it died sending it).
    const pusher = scope.pusher();
    const lapsed = TEST_SETTINGS.retry.maxAttempts + LAPSED_CLAIMS_ALLOWED;
    await suite.env.db
      .updateTable('push_deliveries')
      .set({ attempts: lapsed })
      .where('tenant_id', '=', tenantId)
      .execute();
    const results = await pusher.deliverOnce();
    expect(results).toEqual([
      { outcome: 'dead', error: expect.stringContaining('lapsed without an outcome') },
    ]);
    expect(suite.receiver.requests.filter((r) => r.path === '/poison')).toEqual([]);
    expect((await deliveriesOf(suite.env, tenantId, task.taskId))[0]).toMatchObject({ status: 'dead' });
  });

  it('is still sent on the claims just past the limit (a restart cut the last attempts short)', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/late` });
    await appendEvents(suite.env, tenantId, task, 1);
    const pusher = scope.pusher();
    const lapsed = TEST_SETTINGS.retry.maxAttempts + LAPSED_CLAIMS_ALLOWED - 1;
    await suite.env.db
      .updateTable('push_deliveries')
      .set({ attempts: lapsed })
      .where('tenant_id', '=', tenantId)
      .execute();
    expect(await pusher.deliverOnce()).toEqual([{ outcome: 'delivered', status: 204 }]);
  });
});
