import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '@switchyard/store';
import { createUpstreamAgent } from '../src/upstream-agent.ts';
import {
  card,
  json,
  rpcResult,
  startRawUpstream,
  type RawHandler,
  type RawUpstream,
} from './support/raw-upstream.ts';

// A task the platform failed (its last attempt's error or timeout, a worker dead on it) must not
// leave its upstream task running for nobody: onFailed cancels it, as onCanceled does.
const policy = { allowCidrs: ['127.0.0.1/32'], allowHttp: true };
let up: RawUpstream;
beforeAll(async () => {
  up = await startRawUpstream();
});
afterAll(() => up?.stop());

const recordingCancels =
  (canceled: string[]): RawHandler =>
  (_req, res, body) => {
    const request = JSON.parse(body) as { id: unknown; method: string; params: { id?: string } };
    if (request.method === 'CancelTask') canceled.push(request.params.id ?? '');
    const task = {
      id: request.params.id,
      contextId: 'up-ctx',
      status: { state: 'TASK_STATE_CANCELED', timestamp: new Date().toISOString() },
    };
    rpcResult(res, request.id, task);
  };

describe('onFailed of the a2a-upstream executor', () => {
  it('cancels the upstream task the failed task was linked to, and nothing when there is none', async () => {
    const canceled: string[] = [];
    up.route('/rpc', recordingCancels(canceled));
    up.route('/card.json', json(card(up.url)));
    const agent = createUpstreamAgent({ secrets: createSecretBox('test-secret-key-0123456789'), policy });
    const links = new Map<string, unknown>([
      ['a2a-upstream:task:ours-1', { taskId: 'up-7', turn: 't', delivered: true }],
    ]);
    const ended = (taskId: string) => ({
      taskId,
      contextId: 'ctx',
      settings: { cardUrl: `${up.url}/card.json` },
      memory: {
        get: async <T>(key: string) => links.get(key) as T | undefined,
        set: async () => undefined,
      },
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    await agent.onFailed!(ended('ours-1'));
    expect(canceled).toEqual(['up-7']);
    await agent.onFailed!(ended('never-linked'));
    expect(canceled).toEqual(['up-7']);
  });
});
