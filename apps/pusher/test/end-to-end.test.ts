import { randomUUID } from 'node:crypto';
import { bundledAgents } from '@switchyard/agents';
import {
  CachedAgentDirectory,
  createWorkerRuntime,
  engineConfig,
  TaskService,
  TaskWriter,
  type WorkerRuntime,
} from '@switchyard/engine';
import { HintPublisher, SubscriptionHub } from '@switchyard/events';
import { TaskState, type StreamResponse } from '@switchyard/protocol';
import { createQueueKeys, TaskQueue } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
import { createTestRedis, waitFor, type TestRedis } from '@switchyard/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstSeen, startReceiver, type Receiver } from './receiver.ts';
import { makePusher, newTenant, openPusherTestEnv, type PusherTestEnv } from './pusher-fixtures.ts';
import type { Pusher } from '../src/create-pusher.ts';

// The whole path in one process: SendMessage with a push config → worker runs the agent → events
// and outbox rows commit together → the writer's hint wakes the pusher → signed POSTs arrive.
let env: PusherTestEnv;
let redis: TestRedis;
let receiver: Receiver;
let worker: WorkerRuntime;
let pusher: Pusher;
let service: TaskService;
const STEPS = 5;

beforeAll(async () => {
  env = await openPusherTestEnv();
  redis = createTestRedis();
  receiver = await startReceiver();
  const keys = createQueueKeys(redis.prefix);
  const log = silentLogger();
  const commands = redis.connect();
  const config = engineConfig({ pollIntervalMs: 100, dispatchGraceMs: 1000 });
  worker = createWorkerRuntime({
    pool: env.testDb.pool,
    redis: redis.connect(),
    subscriber: redis.connect(),
    keys,
    secrets: env.secrets,
    log,
    concurrency: 2,
    engine: config,
    shutdownGraceMs: 200,
  });
  worker.start();
  // A poll far longer than the test: every wake-up must come from a hint or a finished send.
  pusher = makePusher(env, redis, { pollMs: 60_000 });
  await pusher.start();
  service = new TaskService({
    store: env.tasks,
    pushConfigs: env.pushConfigs,
    writer: new TaskWriter({ store: env.tasks, hints: new HintPublisher({ redis: commands, keys }), log }),
    dispatcher: new TaskQueue({ connection: commands, keys }),
    hub: new SubscriptionHub({ subscriber: redis.connect(), keys }),
    agents: new CachedAgentDirectory({ load: (t: string, a: string) => env.admin.getAgent(t, a) }),
    config,
    urlPolicy: { allowCidrs: ['127.0.0.0/8'], allowHttp: true },
    log,
  });
});
afterAll(async () => {
  await pusher?.stop();
  await worker?.stop();
  await receiver.close();
  await redis.cleanup();
  await env.testDb.drop();
});

/** Registers the bundled agent `executor` under its own name with `settings`. */
async function registerBundled(tenantId: string, executor: string, settings: Record<string, unknown>) {
  const bundled = bundledAgents.find((a) => a.executor === executor)!;
  await env.admin.upsertAgent({
    tenantId,
    id: executor,
    card: bundled.card as unknown as Record<string, unknown>,
    executor,
    settings,
  });
  return (await env.admin.getAgent(tenantId, executor))!;
}

describe('push notifications end to end (ARCHITECTURE.md §4 step 6, §7)', () => {
  it('delivers every event of a task run by a worker, in order, signed, ending with the terminal state', async () => {
    const { tenantId, webhookSecret } = await newTenant(env);
    const agent = await registerBundled(tenantId, 'slow', { steps: STEPS, delayMs: 200 });

    const sent = await service.send({ tenantId, principal: 'alice', admin: false }, agent, {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] },
      configuration: {
        returnImmediately: true,
        taskPushNotificationConfig: {
          url: `${receiver.origin}/hook`,
          token: 'tok-e2e',
          authentication: { scheme: 'Bearer', credentials: 'cred-e2e' },
        },
      },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const taskId = sent.task.id;

    const last = () => receiver.requests.at(-1);
    const final = await waitFor(
      () => {
        const body = last() && (JSON.parse(last()!.body) as StreamResponse);
        return body?.statusUpdate?.status.state === TaskState.COMPLETED && body;
      },
      { timeoutMs: 20_000, what: 'the COMPLETED push' },
    );

    expect(final.statusUpdate?.taskId).toBe(taskId);
    const seqs = firstSeen(receiver.requests, taskId);
    const events = await env.tasks.readEvents(tenantId, taskId, 0);
    // Every event of the visible task, each once, in log order.
    expect(seqs).toEqual(events.map((e) => e.seq));
    expect(receiver.requests.map((r) => JSON.parse(r.body) as unknown)).toEqual(events.map((e) => e.payload));
    expect(events.filter((e) => e.payload.artifactUpdate)).toHaveLength(STEPS);
    for (const req of receiver.requests) {
      expect(req.headers.authorization).toBe('Bearer cred-e2e');
      expect(req.headers['x-a2a-notification-token']).toBe('tok-e2e');
      expect(() =>
        new Webhook(webhookSecret).verify(req.body, { ...req.headers } as Record<string, string>),
      ).not.toThrow();
    }
  });

  it('sends a config registered by an A2A 0.3 client the task as it stands, in the 0.3 shape', async () => {
    const { tenantId } = await newTenant(env);
    const agent = await registerBundled(tenantId, 'echo', {});
    const caller = { tenantId, principal: 'alice', admin: false, protocolVersion: '0.3' as const };
    const sent = await service.send(caller, agent, {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      configuration: {
        returnImmediately: true,
        taskPushNotificationConfig: { url: `${receiver.origin}/v03` },
      },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const taskId = sent.task.id;
    const final = await waitFor(
      async () => {
        const task = await service.getTask(caller, agent.id, taskId);
        return task.status.state === TaskState.COMPLETED ? task : undefined;
      },
      { timeoutMs: 20_000, what: 'the task to complete' },
    );
    const lastSeq = (await env.tasks.getTaskRecord(tenantId, taskId))!.version;
    const received = () => receiver.requests.filter((r) => r.taskId === taskId);
    await waitFor(() => received().some((r) => r.seq === lastSeq), {
      timeoutMs: 20_000,
      what: 'the push of the last event',
    });
    // 0.3 servers (the a2a-js, a2a-python and a2a-java SDKs) POST the whole Task at each event,
    // and that is what a 0.3 receiver parses: every body is the 0.3 Task, with its artifacts.
    const bodies = received().map(
      (r) =>
        JSON.parse(r.body) as {
          kind: string;
          id: string;
          status: { state: string };
          artifacts?: unknown[];
          history?: unknown[];
        },
    );
    expect(bodies.every((b) => b.kind === 'task' && b.id === taskId)).toBe(true);
    const last = bodies[received().findIndex((r) => r.seq === lastSeq)]!;
    expect(last.status.state).toBe('completed');
    expect(last.artifacts?.length).toBe(final.artifacts?.length);
    expect(last.history).toBeUndefined();
    // Only the events a receiver acts on (the end, a question) carry the artifacts: a task
    // streaming many chunks would otherwise resend them all with each one.
    const first = bodies[received().findIndex((r) => r.seq === 1)]!;
    expect(first.artifacts).toBeUndefined();
    expect(received().every((r) => r.headers['content-type'] === 'application/json')).toBe(true);
    expect(received().some((r) => r.body.includes('TASK_STATE_'))).toBe(false);
  });
});
