import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAVELLERS_QUESTION } from '@switchyard/agents';
import { TaskState, type Task } from '@switchyard/protocol';
import { A2AClient, userMessage } from '../src/index.ts';
import { runSwitchyard } from './support/cli-process.ts';
import { freePort } from '@switchyard/testing';
import { ADMIN_TOKEN, startPlatform, TENANT, type Platform } from './support/platform.ts';

// The `switchyard` CLI as a real child process: output and the documented exit codes.
let platform: Platform;
let env: Record<string, string>;
beforeAll(async () => {
  platform = await startPlatform();
  env = { SWITCHYARD_API_KEY: platform.apiKey };
});
afterAll(async () => {
  await platform?.stop();
});

const cli = (...args: string[]) => runSwitchyard(args, env);

describe('send', () => {
  it('streams progress to stderr and prints the finished task; exit 0', async () => {
    const run = await cli('send', platform.agentUrl('slow'), 'go');
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^task [0-9a-f-]{36} \(context [0-9a-f-]{36}\)$/m);
    expect(run.stderr).toContain('[WORKING] Step 1 of 3');
    expect(run.stderr).toContain('artifact progress: chunk 3 (complete)');
    expect(run.stdout).toMatch(/^Task [0-9a-f-]{36}: COMPLETED$/m);
    expect(run.stdout).toContain('agent    done after 1500 ms');
    expect(run.stdout).toContain('step 3/3');
  });

  it('--json prints one SendMessageResponse document and no progress', async () => {
    const run = await cli('send', platform.agentUrl('echo'), 'hello json', '--json', '--transport', 'rest');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as { task: Task };
    expect(result.task.status.state).toBe(TaskState.COMPLETED);
    expect(result.task.artifacts?.[0]?.parts[0]?.text).toBe('hello json');
  });

  it('input required exits 4 with a hint; --task continues it to COMPLETED (exit 0)', async () => {
    const first = await cli('send', platform.agentUrl('booking'), 'book a flight to Paris', '--json');
    expect(first.code).toBe(4);
    const task = (JSON.parse(first.stdout) as { task: Task }).task;
    expect(task.status.state).toBe(TaskState.INPUT_REQUIRED);
    const human = await cli('send', platform.agentUrl('booking'), 'book a hotel in Rome');
    expect(human.code).toBe(4);
    expect(human.stdout).toContain(TRAVELLERS_QUESTION);
    expect(human.stderr).toContain('--task');
    const second = await cli(
      'send',
      platform.agentUrl('booking'),
      '2',
      '--task',
      task.id,
      '--context',
      task.contextId ?? '',
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`Task ${task.id}: COMPLETED`);
  });

  it('a rejected task exits 3', async () => {
    const run = await cli('send', platform.agentUrl('invoices'), '{"not":"invoices"}');
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('REJECTED');
  });

  it('--no-stream polls instead of subscribing', async () => {
    const run = await cli('send', platform.agentUrl('slow'), 'poll', '--no-stream');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('polling for updates');
    expect(run.stdout).toContain('COMPLETED');
  });

  it('--timeout exits 6 and says how to follow the task', async () => {
    const run = await cli('send', platform.agentUrl('sleepy'), 'zzz', '--timeout', '1');
    expect(run.code).toBe(6);
    const taskId = /switchyard tail \S+ ([0-9a-f-]{36})/.exec(run.stderr)?.[1];
    expect(taskId).toBeDefined();
    expect((await cli('cancel', platform.agentUrl('sleepy'), taskId ?? '')).code).toBe(0);
  });
});

describe('get, list, cancel, tail', () => {
  let client: A2AClient;
  let done: Task;
  beforeAll(async () => {
    client = await A2AClient.fromCardUrl(platform.cardUrl('echo'), { apiKey: platform.apiKey });
    done = (await client.sendMessage({ message: userMessage('for the cli') })).task as Task;
  });

  it('get prints the task (exit 0); --json prints the Task', async () => {
    const run = await cli('get', platform.agentUrl('echo'), done.id);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Task ${done.id}: COMPLETED`);
    expect(run.stdout).toContain('for the cli');
    const json = await cli('get', platform.agentUrl('echo'), done.id, '--json');
    expect((JSON.parse(json.stdout) as Task).id).toBe(done.id);
  });

  it('get of an unknown task exits 2 with the error reason', async () => {
    const run = await cli('get', platform.agentUrl('echo'), '00000000-0000-4000-8000-000000000000');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('(TASK_NOT_FOUND)');
    const json = await cli(
      'get',
      platform.agentUrl('echo'),
      '00000000-0000-4000-8000-000000000000',
      '--json',
    );
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: { reason: 'TASK_NOT_FOUND', type: 'TaskNotFoundError' },
    });
  });

  it('a reader that stops reading (| head) ends the CLI quietly, not with an EPIPE stack trace', async () => {
    await cli('send', platform.agentUrl('echo'), 'one to list');
    const run = await runSwitchyard(['list', platform.agentUrl('echo'), '--all'], env, { closeStdout: true });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('list prints a table; --state filters; --json prints the ListTasksResponse', async () => {
    const run = await cli('list', platform.agentUrl('echo'), '--state', 'completed', '--all');
    expect(run.code).toBe(0);
    const [header, ...rows] = run.stdout.trim().split('\n');
    expect(header).toMatch(/^TASK\s+STATE\s+UPDATED\s+CONTEXT\s+STATUS$/);
    expect(rows.some((r) => r.startsWith(done.id) && r.includes('COMPLETED'))).toBe(true);
    const json = await cli('list', platform.agentUrl('echo'), '--context', done.contextId ?? '', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      tasks: [{ id: done.id }],
      nextPageToken: '',
      totalSize: 1,
    });
  });

  it('cancel exits 0 with CANCELED; cancelling again exits 2 (TaskNotCancelable)', async () => {
    const sleepy = await A2AClient.fromCardUrl(platform.cardUrl('sleepy'), { apiKey: platform.apiKey });
    const sent = await sleepy.sendMessage({
      message: userMessage('zzz'),
      configuration: { returnImmediately: true },
    });
    const id = sent.task?.id ?? '';
    const run = await cli('cancel', platform.agentUrl('sleepy'), id);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Task ${id}: CANCELED`);
    const again = await cli('cancel', platform.agentUrl('sleepy'), id);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('TASK_NOT_CANCELABLE');
    // A canceled task reads back with exit 3.
    expect((await cli('get', platform.agentUrl('sleepy'), id)).code).toBe(3);
  });

  it("tail prints a running task's events until it completes (exit 0); --json prints NDJSON events", async () => {
    const slow = await A2AClient.fromCardUrl(platform.cardUrl('slow'), { apiKey: platform.apiKey });
    const sent = await slow.sendMessage({
      message: userMessage('tail me'),
      configuration: { returnImmediately: true },
    });
    const run = await cli('tail', platform.agentUrl('slow'), sent.task?.id ?? '', '--json');
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: string; response: Record<string, unknown> });
    expect(Object.keys(events[0]?.response ?? {})).toEqual(['task']);
    // The first event is the task as it stands (it may already hold some chunks; the CLI starts
    // slowly on a busy machine), then the rest as updates: three parts in all, none twice.
    type Parts = { parts: unknown[] };
    const snapshot = events[0]?.response['task'] as { artifacts?: Parts[] } | undefined;
    const held = (snapshot?.artifacts ?? []).reduce((n, a) => n + a.parts.length, 0);
    const streamed = events
      .map((e) => e.response['artifactUpdate'] as { artifact: Parts } | undefined)
      .reduce((n, u) => n + (u?.artifact.parts.length ?? 0), 0);
    expect(held + streamed).toBe(3);
    const human = await cli('tail', platform.agentUrl('slow'), sent.task?.id ?? '');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/task COMPLETED/);
  });
});

describe('push', () => {
  it('add, list, get, rm', async () => {
    const client = await A2AClient.fromCardUrl(platform.cardUrl('echo'), { apiKey: platform.apiKey });
    const taskId = (await client.sendMessage({ message: userMessage('push') })).task?.id ?? '';
    const url = platform.agentUrl('echo');
    const add = await cli(
      'push',
      'add',
      url,
      taskId,
      'http://127.0.0.1:9/hook',
      '--id',
      'hook-1',
      '--auth-scheme',
      'Bearer',
      '--auth-credentials',
      's3cr3t',
      '--json',
    );
    expect(add.code).toBe(0);
    expect(JSON.parse(add.stdout)).toMatchObject({ id: 'hook-1', taskId, url: 'http://127.0.0.1:9/hook' });
    const list = await cli('push', 'list', url, taskId);
    expect(list.stdout).toMatch(/^hook-1\s+http:\/\/127\.0\.0\.1:9\/hook\s+Bearer$/m);
    const get = await cli('push', 'get', url, taskId, 'hook-1');
    expect(get.stdout).toContain('url   http://127.0.0.1:9/hook');
    expect((await cli('push', 'rm', url, taskId, 'hook-1')).code).toBe(0);
    expect((await cli('push', 'get', url, taskId, 'hook-1')).code).toBe(2);
  });
});

describe('admin', () => {
  const admin = (...args: string[]) =>
    runSwitchyard(['admin', ...args, '--server', platform.url], { SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN });

  it('tenants, agents and keys: a key made with the CLI works with the CLI', async () => {
    const created = await admin('tenants', 'create', 'globex', '--name', 'Globex', '--json');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      tenant: { id: 'globex' },
      webhookSecret: expect.stringMatching(/^whsec_/),
    });
    expect((await admin('tenants', 'create', 'globex')).code).toBe(2);
    expect((await admin('tenants', 'list')).stdout).toMatch(/^globex\s+Globex/m);
    expect((await admin('tenants', 'cap', 'globex', '3')).stdout).toContain('tenant globex: 3 runs');
    expect((await admin('tenants', 'list')).stdout).toMatch(/^globex\s+Globex.*3 runs$/m);
    expect(JSON.parse((await admin('tenants', 'cap', 'globex', 'none', '--json')).stdout)).toMatchObject({
      maxRunning: 0,
    });
    expect((await admin('tenants', 'cap', 'globex', '1')).stdout).toContain('tenant globex: 1 run\n');
    expect((await admin('tenants', 'cap', 'globex', 'default')).stdout).toContain('fleet default');
    expect((await admin('tenants', 'cap', 'globex', 'lots')).code).toBe(1);
    expect((await admin('tenants', 'cap', 'nobody', '1')).code).toBe(2);

    const put = await admin('agents', 'put', 'globex', 'echo', '--executor', 'echo');
    expect(put.code).toBe(0);
    expect(put.stdout).toContain(`card: ${platform.url}/agents/globex/echo/.well-known/agent-card.json`);
    expect((await admin('agents', 'list', 'globex')).stdout).toMatch(/^echo\s+echo\s+http/m);

    const key = JSON.parse(
      (await admin('keys', 'create', 'globex', '--principal', 'carol', '--json')).stdout,
    ) as { key: { id: string }; plaintext: string };
    const sent = await runSwitchyard([
      'send',
      `${platform.url}/agents/globex/echo`,
      'hi globex',
      '--api-key',
      key.plaintext,
    ]);
    expect(sent.code).toBe(0);
    expect((await admin('keys', 'list', 'globex')).stdout).toContain(key.key.id);

    const rotated = JSON.parse((await admin('keys', 'rotate', 'globex', key.key.id, '--json')).stdout) as {
      plaintext: string;
    };
    expect(rotated.plaintext).not.toBe(key.plaintext);
    expect(
      (await runSwitchyard(['get', `${platform.url}/agents/globex/echo`, 'x', '--api-key', key.plaintext]))
        .code,
    ).toBe(2);
    const rotatedId = JSON.parse((await admin('keys', 'list', 'globex', '--json')).stdout) as {
      keys: Array<{ id: string; revokedAt: string | null }>;
    };
    const live = rotatedId.keys.find((k) => k.revokedAt === null);
    expect((await admin('keys', 'revoke', 'globex', live?.id ?? '')).code).toBe(0);
    expect((await admin('agents', 'rm', 'globex', 'echo')).code).toBe(0);
    expect((await admin('agents', 'rm', 'globex', 'echo')).code).toBe(2);
  }, 90_000); // a dozen CLI processes: slow to start on a busy 2-core machine

  it('a wrong admin token exits 2; a missing one is a usage error (exit 1)', async () => {
    const wrong = await runSwitchyard([
      'admin',
      'tenants',
      'list',
      '--server',
      platform.url,
      '--admin-token',
      'nope-nope-nope-nope',
    ]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('UNAUTHENTICATED');
    expect((await runSwitchyard(['admin', 'tenants', 'list', '--server', platform.url])).code).toBe(1);
  });
});

describe('usage and network errors', () => {
  it('exit 1 for an unknown command, a missing argument or an option the command does not take', async () => {
    expect((await cli('frobnicate')).code).toBe(1);
    const missing = await cli('get', platform.agentUrl('echo'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('usage: switchyard get <agent-url> <task-id>');
    expect((await cli('get', platform.agentUrl('echo'), 'x', '--state', 'working')).code).toBe(1);
  });

  // Found in review: `switchyard --help` printed to stderr, while `switchyard get --help` printed
  // to stdout, so `switchyard --help | less` showed nothing.
  it('--help prints to stdout (exit 0); no command at all prints the help to stderr (exit 1)', async () => {
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Commands:');
    expect(help.stderr).toBe('');
    const none = await cli();
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('Commands:');
  });

  it('exit 5 when nothing answers', async () => {
    const port = await freePort();
    const run = await cli('get', `http://127.0.0.1:${port}/agents/${TENANT}/echo`, 'x');
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('ECONNREFUSED');
  });
});
