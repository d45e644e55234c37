import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatch } from '@switchyard/queue';
import { PostgresPushConfigStore, createDb, createSecretBox } from '@switchyard/store';
import { silentLogger } from '@switchyard/telemetry';
import { TaskService } from '../src/index.ts';
import {
  alice,
  quietWriter,
  SECRET,
  startPlatform,
  storeWith,
  userMessage,
  type Platform,
} from './platform-fixture.ts';

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
    const store = storeWith(p.store, 'createTask', (createTask) => async (input) => {
      await createTask(input); // committed, answer lost
      return createTask(input); // the fallback's run: its own key, seen before
    });
    const dispatched: Dispatch[] = [];
    const service = new TaskService({
      store,
      pushConfigs: new PostgresPushConfigStore({ db: createDb(p.db.pool), secrets: createSecretBox(SECRET) }),
      writer: quietWriter(store),
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
