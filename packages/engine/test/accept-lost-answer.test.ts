import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatch } from '@switchyard/queue';
import { PostgresPushConfigStore, createDb, createSecretBox, type TaskStore } from '@switchyard/store';
import { silentLogger } from '@switchyard/telemetry';
import { TaskService, TaskWriter } from '../src/index.ts';
import { alice, SECRET, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// Found in review: a gateway's sends go to Postgres together in one statement. When that
// statement commits but its answer is lost (the connection drops at the commit), the batch's
// fallback runs each send again, and each finds its own key: "seen before". A send that took
// that for a client's retry never dispatched its task (the reaper did, after its grace period).
let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
});
afterAll(() => p.close());

describe('a send whose committed create answered "seen before" with its own new id', () => {
  it('is dispatched at once, as the send that created it', async () => {
    const store = new Proxy(p.store, {
      get(target, prop, receiver) {
        if (prop === 'createTask')
          return async (input: Parameters<TaskStore['createTask']>[0]) => {
            await target.createTask(input); // committed, answer lost
            return target.createTask(input); // the fallback's run: its own key, seen before
          };
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const dispatched: Dispatch[] = [];
    const service = new TaskService({
      store,
      pushConfigs: new PostgresPushConfigStore({ db: createDb(p.db.pool), secrets: createSecretBox(SECRET) }),
      writer: new TaskWriter({
        store,
        hints: { publish: async () => undefined, publishPushDue: async () => undefined },
        log: silentLogger(),
      }),
      dispatcher: { enqueue: async (d) => void dispatched.push(d) },
      hub: { watch: () => () => undefined },
      agents: { getAgent: (tenantId, agentId) => p.admin.getAgent(tenantId, agentId) },
      config: p.config,
      urlPolicy: { allowCidrs: [], allowHttp: true },
      log: silentLogger(),
    });
    const sent = await service.send(alice, await p.agent('echo'), {
      message: userMessage('x'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    await new Promise((resolve) => setImmediate(resolve));
    expect(dispatched).toMatchObject([{ taskId: sent.task.id }]);
  });
});
