import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBundledAgent, type Agent } from '@switchyard/agents';
import { isTerminal, TaskState } from '@switchyard/protocol';
import { Redis } from 'ioredis';
import { COMMANDS_CONNECTION_OPTIONS, guardCommands, isRedisAway } from '@switchyard/queue';
import { startTcpProxy, waitFor } from '@switchyard/testing';
import { FAILED_MESSAGE } from '../src/index.ts';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

let p: Platform;
const flaky: Agent = {
  executor: 'flaky',
  card: {
    name: 'flaky',
    description: 'fails twice, then works',
    version: '1.0.0',
    skills: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  },
  async execute(ctx) {
    if (ctx.message.parts[0]?.text === 'always' || ctx.task.attempt < 3)
      throw new Error('secret internal detail: db password wrong');
    await ctx.complete('finally');
  },
};
const modes: Agent = {
  executor: 'modes',
  card: {
    name: 'modes',
    description: 'answers with the output modes it was asked for',
    version: '1.0.0',
    skills: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  },
  async execute(ctx) {
    await ctx.complete(JSON.stringify(ctx.acceptedOutputModes ?? null));
  },
};
const findAgent = (executor: string) =>
  executor === 'flaky' ? flaky : executor === 'modes' ? modes : findBundledAgent(executor);

beforeAll(async () => {
  p = await startPlatform({ maxAttempts: 3 });
  await p.registerAgent(flaky);
  await p.registerAgent(modes);
  p.startWorker({ findAgent });
});

describe('acceptedOutputModes (digest §7.2 rule 14)', () => {
  it("the agent that runs the task sees the client's acceptedOutputModes", async () => {
    const agent = (await p.admin.getAgent('acme', 'modes'))!;
    const r = await p.service.send(alice, agent, {
      message: userMessage('which?'),
      configuration: { acceptedOutputModes: ['application/json'] },
    });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.message?.parts[0]?.text).toBe('["application/json"]');
  });
});
afterAll(() => p.close());

describe('retries (issue: errors and lapsed leases share one backoff and limit)', () => {
  it('an agent error is retried with backoff and the task completes on a later attempt', async () => {
    const agent = (await p.admin.getAgent('acme', 'flaky'))!;
    const r = await p.service.send(alice, agent, { message: userMessage('try') });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe(TaskState.COMPLETED);
    expect((await p.store.getTaskRecord('acme', r.task.id))?.attempts).toBe(3);
    // A retry announces the status the task keeps (WORKING), with the time that status began:
    // the row's status time does not move, and the event agrees with it.
    const working = (await p.store.readEvents('acme', r.task.id, 0, 100))
      .map((e) => e.payload.statusUpdate?.status)
      .filter((s) => s?.state === TaskState.WORKING);
    expect(working.length).toBeGreaterThan(1);
    expect(new Set(working.map((s) => s!.timestamp)).size).toBe(1);
  });

  it('after the last attempt the task fails with a short safe message (no internals)', async () => {
    const agent = (await p.admin.getAgent('acme', 'flaky'))!;
    const r = await p.service.send(alice, agent, { message: userMessage('always') });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe(TaskState.FAILED);
    const text = r.task.status.message?.parts[0]?.text;
    expect(text).toBe(FAILED_MESSAGE);
    expect(JSON.stringify(r.task)).not.toContain('password');
  });
});

describe('Redis loss (ARCHITECTURE.md §3 rule 1)', () => {
  it('FLUSHALL while tasks are SUBMITTED and WORKING: every task still completes', async () => {
    const agent = await p.slowAgent('slow-flush', { delayMs: 400 });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await p.service.send(alice, agent, {
        message: userMessage(`t${i}`),
        configuration: { returnImmediately: true },
      });
      if ('task' in r) ids.push(r.task.id);
    }
    await waitFor(async () => {
      const states = await Promise.all(
        ids.map(async (id) => (await p.store.getTaskRecord('acme', id))?.state),
      );
      return states.includes(TaskState.WORKING) && states.includes(TaskState.SUBMITTED);
    });
    const conn = p.redis.connect();
    // Only this test's keys: other test files share the server.
    let cursor = '0';
    do {
      const [next, keys] = await conn.scan(cursor, 'MATCH', `*${p.redis.prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await conn.del(...keys);
    } while (cursor !== '0');
    await waitFor(
      async () => {
        const records = await Promise.all(ids.map((id) => p.store.getTaskRecord('acme', id)));
        return records.every((r) => r && isTerminal(r.state));
      },
      { timeoutMs: 30_000, what: 'all tasks terminal after Redis was emptied' },
    );
    const records = await Promise.all(ids.map((id) => p.store.getTaskRecord('acme', id)));
    expect(records.map((r) => r?.state)).toEqual(ids.map(() => TaskState.COMPLETED));
  });

  it("a run whose hint connection lost Redis still finishes: writes never wait for Redis's return", async () => {
    const own = await startPlatform();
    const target = new URL(own.redis.url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const commands = new Redis(`redis://127.0.0.1:${proxy.port}`, COMMANDS_CONNECTION_OPTIONS);
    commands.on('error', () => undefined);
    try {
      await waitFor(() => commands.status === 'ready');
      own.startWorker({ commands });
      await proxy.cut(); // and it stays cut: Redis is away for the hints, not for BullMQ
      await waitFor(() => isRedisAway(commands));
      const slow = await own.slowAgent('slow-steps', { delayMs: 300, steps: 3 });
      const r = await own.service.send(alice, slow, {
        message: userMessage('three steps'),
        configuration: { returnImmediately: true },
      });
      const id = 'task' in r ? r.task.id : '';
      // Claim, three progress steps and the completion each publish a hint after their commit.
      const done = await waitFor(
        async () => {
          const t = await own.store.getTaskRecord('acme', id);
          return t && isTerminal(t.state) ? t : null;
        },
        { timeoutMs: 20_000, what: 'the task terminal while its hints cannot be published' },
      );
      expect(done.state).toBe(TaskState.COMPLETED);
    } finally {
      commands.disconnect();
      await proxy.close();
      await own.close();
    }
  });
});

describe('a Redis that stops answering (frozen, or packets dropped without a reset)', () => {
  it('stalls neither a run nor a blocking send past its ceiling: hint commands time out', async () => {
    const target = new URL(p.redis.url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const commands = guardCommands(new Redis(`redis://127.0.0.1:${proxy.port}`, COMMANDS_CONNECTION_OPTIONS));
    commands.on('error', () => undefined);
    await waitFor(() => commands.status === 'ready');
    // The service and the worker publish their hints through the proxy; BullMQ goes direct.
    const own = await startPlatform({ blockingTimeoutMs: 1000 }, { commands });
    try {
      own.startWorker({ commands });
      const slow = await own.slowAgent('slow-frozen', { delayMs: 100, steps: 2 });
      proxy.freeze(); // nothing passes either way, nothing closes: the connection stays "ready"
      // Past its ceiling the send answers with the task as it stands; making it visible is a
      // write whose hint cannot be published.
      const answered = await own.service.send(alice, slow, { message: userMessage('frozen hints') });
      expect('task' in answered).toBe(true);
      const id = 'task' in answered ? answered.task.id : '';
      const done = await waitFor(
        async () => {
          const t = await own.store.getTaskRecord('acme', id);
          return t && isTerminal(t.state) ? t : null;
        },
        { timeoutMs: 30_000, what: 'the run to finish while Redis answers no hint' },
      );
      expect(done.state).toBe(TaskState.COMPLETED);
      // The connection never dropped; its first timeout made Redis count as away until it answers.
      expect(commands.status).toBe('ready');
      expect(isRedisAway(commands)).toBe(true);
      proxy.thaw();
      await waitFor(() => !isRedisAway(commands), { what: 'Redis to count as back once it answers' });
    } finally {
      proxy.thaw();
      commands.disconnect();
      await proxy.close();
      await own.close();
    }
  }, 60_000);
});

describe('Postgres loss at the claim (ARCHITECTURE.md §3 rule 4)', () => {
  it('a claim Postgres refused (as in a restart) leaves the task to the reaper, which dispatches it again', async () => {
    // A real refusal from Postgres: a trigger fails every claim of this test's context until it
    // is dropped. The sequence counts refusals (nextval survives the rollback).
    await p.db.pool.query(`
      CREATE SEQUENCE claim_refusals;
      CREATE FUNCTION refuse_claims() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.lease_owner IS NULL AND NEW.lease_owner IS NOT NULL AND NEW.context_id = 'refused-claims' THEN
          PERFORM nextval('claim_refusals');
          RAISE EXCEPTION 'claim refused (test)';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_claims BEFORE UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION refuse_claims();
    `);
    const refusals = async () =>
      Number(
        (await p.db.pool.query<{ n: string }>('SELECT last_value AS n FROM claim_refusals WHERE is_called'))
          .rows[0]?.n ?? 0,
      );
    const r = await p.service.send(alice, await p.agent('echo'), {
      message: userMessage('refused', { contextId: 'refused-claims' }),
      configuration: { returnImmediately: true },
    });
    if (!('task' in r)) throw new Error('expected a task');
    await waitFor(async () => (await refusals()) > 0, { what: 'a claim refused' });
    await p.db.pool.query('DROP TRIGGER refuse_claims ON tasks; DROP FUNCTION refuse_claims()');
    // The job that failed must not keep the dispatch's id from the reaper's new enqueue.
    const done = await waitFor(
      async () => {
        const t = await p.store.getTaskRecord('acme', r.task.id);
        return t && isTerminal(t.state) ? t : null;
      },
      { timeoutMs: 15_000, what: 'the task terminal after its claim was refused' },
    );
    expect(done.state).toBe(TaskState.COMPLETED);
  });
});
