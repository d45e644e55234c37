import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PostgresPushConfigStore,
  createDb,
  createSecretBox,
  type PostgresTaskStore,
} from '@switchyard/store';
import { TaskState } from '@switchyard/protocol';
import { silentLogger } from '@switchyard/telemetry';
import { TaskService, type StreamItem } from '../src/index.ts';
import { alice, quietWriter, SECRET, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// Found in review: a subscription's Task snapshot was read, then the row, again and again until
// the version stood still. A task whose agent streams chunks faster than one round of those reads
// never gave it that moment, so the client got no answer (not even headers) until the agent paused.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
});
afterAll(() => p.close());

/** The store, but every read of `taskId` first lets a busy writer commit one more event. */
function busyStore(taskId: string, write: () => Promise<unknown>): PostgresTaskStore {
  const reads = new Set<string>(['getTaskRecord', 'loadTaskView', 'loadTaskSnapshot']);
  return new Proxy(p.store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const bound = (value as (...a: unknown[]) => Promise<unknown>).bind(target);
      if (!reads.has(String(prop))) return bound;
      return async (...args: unknown[]) => {
        if (args[1] === taskId) await write();
        return bound(...args);
      };
    },
  });
}

describe('subscribing to a task whose version moves between any two reads', () => {
  it('answers with a snapshot at once, and the feed continues right after its version', async () => {
    const sleepy = await p.slowAgent('sleepy', { delayMs: 120_000 });
    const sent = await p.service.send(alice, sleepy, {
      message: userMessage('busy'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const taskId = sent.task.id;
    let writes = 0;
    const write = () =>
      p.store.changeTask({
        tenantId: 'acme',
        taskId,
        expectedVersion: 'any',
        fromStates: [TaskState.SUBMITTED],
        patch: {},
        event: {
          statusUpdate: {
            taskId,
            contextId: sent.task.contextId ?? '',
            status: { state: TaskState.SUBMITTED, timestamp: new Date().toISOString() },
            metadata: { write: ++writes },
          },
        },
      });
    const store = busyStore(taskId, write);
    const service = new TaskService({
      store,
      pushConfigs: new PostgresPushConfigStore({ db: createDb(p.db.pool), secrets: createSecretBox(SECRET) }),
      writer: quietWriter(store),
      dispatcher: { enqueue: async () => undefined },
      hub: { watch: () => () => undefined },
      agents: { getAgent: (tenantId, agentId) => p.admin.getAgent(tenantId, agentId) },
      config: p.config,
      urlPolicy: { allowCidrs: [], allowHttp: true },
      log: silentLogger(),
    });

    const opened = await Promise.race([
      service.subscribe(alice, 'sleepy', taskId),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('no snapshot: the reads never settled')), 10_000),
      ),
    ]);
    const first = opened.first;
    expect(first?.response.task?.id).toBe(taskId);
    const record = await p.store.getTaskRecord('acme', taskId);
    // The snapshot is the row as one statement saw it: every write before it is in it.
    expect(first?.seq).toBe(record?.version);

    // One more event before following: the feed's first read of the log brings it, and only it.
    await write();
    const later: StreamItem[] = [];
    const stop = opened.follow({ item: (item) => void later.push(item), end: () => undefined });
    await expect
      .poll(() => later.map((item) => item.seq), { timeout: 10_000 })
      .toEqual([(record?.version ?? 0) + 1]);
    stop();
  });
});
