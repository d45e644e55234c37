import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2ATestClient, type BindingName, type Failure } from './support/a2a-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { send } from './support/http.ts';
import { taskOf, userMessage } from './support/messages.ts';

// A webhook URL refused by the SSRF rules (digest §8) is InvalidParams whose BadRequest names the
// field as the client sent it, as schema validation of the same body does: `url` in
// CreateTaskPushNotificationConfig (its request is the config itself, flat: taskId, id, url, …),
// `configuration.taskPushNotificationConfig.url` in SendMessage.
let h: Harness;
let taskIds: Record<BindingName, string>;

beforeAll(async () => {
  // No allow-list: private addresses are refused.
  h = await startHarness({ worker: false });
  const start = async (binding: BindingName) => {
    const sent = await client(binding).call('SendMessage', {
      message: userMessage('a task for webhooks'),
      configuration: { returnImmediately: true },
    });
    if (!sent.ok) throw new Error(sent.reason);
    return taskOf(sent.value).id;
  };
  taskIds = { jsonrpc: await start('jsonrpc'), rest: await start('rest') };
});
afterAll(async () => {
  await h?.stop();
});

const client = (binding: BindingName) =>
  new A2ATestClient(binding, `${h.url}/agents/acme/echo`, h.fixtures.keys.alice);

/** The BadRequest field violations of an error body, on either binding. */
function violatedFields(body: unknown): string[] {
  const error = (body as { error?: { data?: unknown[]; details?: unknown[] } }).error;
  const details = (error?.data ?? error?.details ?? []) as Array<Record<string, unknown>>;
  const badRequest = details.find((d) => String(d['@type']).endsWith('BadRequest'));
  return ((badRequest?.['fieldViolations'] ?? []) as Array<{ field: string }>).map((v) => v.field);
}

function refused(reply: { ok: boolean }): Failure {
  expect(reply.ok).toBe(false);
  const failure = reply as Failure;
  expect(failure.reason).toBe('INVALID_PARAMS');
  return failure;
}

describe.each<BindingName>(['jsonrpc', 'rest'])('%s', (binding) => {
  it('CreateTaskPushNotificationConfig: an SSRF-refused url is `url`, as a malformed one is', async () => {
    const ssrf = refused(
      await client(binding).call('CreateTaskPushNotificationConfig', {
        taskId: taskIds[binding],
        url: 'http://10.0.0.1/x',
      }),
    );
    expect(violatedFields(ssrf.body)).toEqual(['url']);
    const malformed = refused(
      await client(binding).call('CreateTaskPushNotificationConfig', {
        taskId: taskIds[binding],
        url: 'not a url',
      }),
    );
    expect(violatedFields(malformed.body)).toEqual(['url']);
  });

  it('SendMessage: an SSRF-refused inline url is `configuration.taskPushNotificationConfig.url`', async () => {
    const inline = refused(
      await client(binding).call('SendMessage', {
        message: userMessage('inline webhook'),
        configuration: { returnImmediately: true, taskPushNotificationConfig: { url: 'http://10.0.0.1/x' } },
      }),
    );
    expect(violatedFields(inline.body)).toEqual(['configuration.taskPushNotificationConfig.url']);
  });
});

it('HTTP+JSON: POST …/pushNotificationConfigs {"url":"http://10.0.0.1/x"} names `url`', async () => {
  const reply = await send(
    'POST',
    `${h.url}/agents/acme/echo/rest/tasks/${taskIds.rest}/pushNotificationConfigs`,
    { key: h.fixtures.keys.alice, body: { url: 'http://10.0.0.1/x' } },
  );
  expect(reply.status).toBe(400);
  expect(violatedFields(reply.body)).toEqual(['url']);
});
