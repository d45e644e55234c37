import { createDb, createSecretBox, PostgresOutboxStore } from '@switchyard/store';
import { expect, it } from 'vitest';
import { createTask, deliveriesOf, newTenant, openPusherTestEnv } from './pusher-fixtures.ts';

it('probe: wrong secret key', async () => {
  const env = await openPusherTestEnv();
  const { tenantId } = await newTenant(env);
  const t = await createTask(env, tenantId, { id: 'hook', url: 'http://127.0.0.1:9/x' });
  const other = new PostgresOutboxStore({ db: createDb(env.testDb.pool), secrets: createSecretBox('another-key-entirely-123') });
  await expect(other.claimDueDeliveries({ workerId: 'w', limit: 10, lockMs: 1 })).rejects.toThrow();
  await new Promise((r) => setTimeout(r, 20));
  await expect(other.claimDueDeliveries({ workerId: 'w', limit: 10, lockMs: 1 })).rejects.toThrow();
  console.log(await deliveriesOf(env, tenantId, t.taskId));
  await env.testDb.drop();
});
