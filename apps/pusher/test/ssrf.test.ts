import type { LookupFn } from '@switchyard/engine';
import { startReceiver } from './receiver.ts';
import { waitFor } from '@switchyard/testing';
import { describe, expect, it } from 'vitest';
import { createTask, deliveriesOf, newTenant, usePusherSuite } from './pusher-fixtures.ts';

const suite = usePusherSuite();
const { scope } = suite;
const noAllowList = { allowCidrs: [], allowHttp: true };

/** A resolver that answers from a table, like a DNS server an attacker controls. */
const resolverOf =
  (table: Record<string, string[]>): LookupFn =>
  async (hostname) =>
    (table[hostname] ?? []).map((address) => ({ address }));

describe('SSRF guard at send time (digest §8: validate again after DNS resolution)', () => {
  it('refuses a literal loopback address that is not in the allow-list, without connecting', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    const [result] = await scope.pusher({ policy: noAllowList }).deliverOnce();
    expect(result).toMatchObject({
      outcome: 'retry',
      error: expect.stringMatching(/^refused: address 127\.0\.0\.1 /),
    });
    expect(suite.receiver.requests).toEqual([]);
    const [row] = await deliveriesOf(suite.env, tenantId, task.taskId);
    expect(row).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: expect.stringContaining('refused'),
    });
  });

  it('refuses a host name that resolves to loopback (localhost, system resolver)', async () => {
    const { tenantId } = await newTenant(suite.env);
    await createTask(suite.env, tenantId, { id: 'hook', url: `http://localhost:${suite.receiver.port}/x` });
    const [result] = await scope.pusher({ policy: noAllowList }).deliverOnce();
    expect(result).toMatchObject({
      outcome: 'retry',
      error: expect.stringMatching(/^refused: host localhost resolves to /),
    });
    expect(suite.receiver.requests).toEqual([]);
  });

  it('catches DNS rebinding: a name that resolves to a forbidden address now is refused, and dead-lettered in the end', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, {
      id: 'hook',
      url: `http://hooks.rebind.test:${suite.receiver.port}/x`,
    });
    // One public and one loopback answer: a single forbidden address refuses the host.
    const resolve = resolverOf({ 'hooks.rebind.test': ['93.184.215.14', '127.0.0.1'] });
    const pusher = scope.pusher({
      policy: noAllowList,
      resolve,
      retry: { maxAttempts: 2, baseMs: 1, maxMs: 1 },
    });
    expect(await pusher.deliverOnce()).toMatchObject([{ outcome: 'retry' }]);
    const last = await waitFor(async () => (await pusher.deliverOnce())[0], { what: 'the second attempt' });
    expect(last).toMatchObject({ outcome: 'dead', error: expect.stringContaining('resolves to 127.0.0.1') });
    expect(suite.receiver.requests).toEqual([]);
    expect(
      (await suite.env.outbox.listDeadLetters({ tenantId, limit: 5 })).deliveries.map((d) => d.taskId),
    ).toEqual([task.taskId]);
  });

  it('connects to the address the guarded lookup approved (allow-listed), keeping the Host name', async () => {
    const { tenantId } = await newTenant(suite.env);
    await createTask(suite.env, tenantId, {
      id: 'hook',
      url: `http://hooks.allowed.test:${suite.receiver.port}/x`,
    });
    const resolve = resolverOf({ 'hooks.allowed.test': ['127.0.0.1'] });
    const [result] = await scope.pusher({ resolve }).deliverOnce();
    expect(result).toEqual({ outcome: 'delivered', status: 204 });
    expect(suite.receiver.requests[0]!.headers.host).toBe(`hooks.allowed.test:${suite.receiver.port}`);
  });

  it('does not follow a redirect to an internal address', async () => {
    const { tenantId } = await newTenant(suite.env);
    const internal = await startReceiver();
    try {
      suite.receiver.respond = () => ({ status: 302, headers: { location: `${internal.origin}/metadata` } });
      const task = await createTask(suite.env, tenantId, {
        id: 'hook',
        url: `${suite.receiver.origin}/redirects`,
      });
      const [result] = await scope.pusher().deliverOnce();
      expect(result).toMatchObject({
        outcome: 'retry',
        error: expect.stringContaining('redirect not followed'),
      });
      expect(suite.receiver.requests).toHaveLength(1);
      expect(internal.requests).toEqual([]);
      const [row] = await deliveriesOf(suite.env, tenantId, task.taskId);
      expect(row).toMatchObject({ lastStatus: 302, status: 'pending' });
    } finally {
      await internal.close();
    }
  });

  it('refuses plain http when the policy requires https', async () => {
    const { tenantId } = await newTenant(suite.env);
    await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    const [result] = await scope
      .pusher({ policy: { allowCidrs: ['127.0.0.0/8'], allowHttp: false } })
      .deliverOnce();
    expect(result).toMatchObject({
      outcome: 'retry',
      error: 'refused: webhook url scheme http: is not allowed',
    });
    expect(suite.receiver.requests).toEqual([]);
  });
});
