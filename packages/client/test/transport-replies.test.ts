import { describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { A2AClient, type StreamEvent, type SupportedBinding } from '../src/index.ts';
import { scriptedAgentFetch, scriptedCard } from './support/scripted-agent.ts';
import type { FaultHook } from './support/recording-fetch.ts';

// How the transports read what a server sends back, on shapes the platform never sends: a
// scripted fetch plays the agent.
const TASK = { id: 't1', contextId: 'c1', status: { state: TaskState.COMPLETED } };
const FAST = { retry: { baseDelayMs: 1, maxDelayMs: 2 } };

function client(binding: SupportedBinding, answer: FaultHook) {
  const fetch = scriptedAgentFetch(answer, scriptedCard(binding));
  return { fetch, client: A2AClient.fromCard(scriptedCard(binding), { fetch, ...FAST }) };
}

const sse = (text: string) => new Response(text, { headers: { 'content-type': 'text/event-stream' } });

describe.each<SupportedBinding>(['JSONRPC', 'HTTP+JSON'])('over %s', (binding) => {
  // Found in review: an SSE event with empty data (`event: ping` / `data:`), a heartbeat some
  // servers send, threw InvalidAgentResponse and killed the stream.
  it('an SSE event without data is skipped, not a broken stream', async () => {
    const { client: agent } = client(binding, async (request) => {
      const { id } = JSON.parse(request.body ?? '{}') as { id?: string };
      const data = JSON.stringify(
        binding === 'JSONRPC' ? { jsonrpc: '2.0', id, result: { task: TASK } } : { task: TASK },
      );
      return sse(`event: ping\ndata:\n\nevent: ping\ndata: \n\nid: 1\ndata: ${data}\n\n`);
    });
    const events: StreamEvent[] = [];
    for await (const event of agent.subscribeToTask('t1')) events.push(event);
    expect(events).toEqual([{ id: '1', response: { task: TASK } }]);
  });
});

// Found in review: a REST 200 with an empty body resolved to {} as a Task or SendMessageResponse,
// and the CLI then crashed with a TypeError on task.status.state.
describe('an empty HTTP+JSON reply', () => {
  it('is InvalidAgentResponse where the operation returns something', async () => {
    const { client: agent } = client('HTTP+JSON', async () => new Response('', { status: 200 }));
    await expect(agent.getTask('t1')).rejects.toMatchObject({ kind: 'InvalidAgentResponse' });
    await expect(
      agent.sendMessage({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
    ).rejects.toMatchObject({ kind: 'InvalidAgentResponse' });
    const { client: noContent } = client('HTTP+JSON', async () => new Response(null, { status: 204 }));
    await expect(noContent.getTask('t1')).rejects.toMatchObject({ kind: 'InvalidAgentResponse' });
  });

  it('is fine for deleting a push config, as 200 or 204', async () => {
    for (const reply of [
      () => new Response('', { status: 200 }),
      () => new Response(null, { status: 204 }),
    ]) {
      const { client: agent } = client('HTTP+JSON', async () => reply());
      await expect(agent.deletePushConfig('t1', 'p1')).resolves.toBeUndefined();
    }
  });
});

// Found in review: a JSON-RPC reply whose id differed from the request's was taken as the answer.
describe('a JSON-RPC reply to another request', () => {
  it('is InvalidAgentResponse', async () => {
    const { client: agent } = client('JSONRPC', async () =>
      Response.json({ jsonrpc: '2.0', id: 'someone-else', result: TASK }),
    );
    await expect(agent.getTask('t1')).rejects.toMatchObject({
      kind: 'InvalidAgentResponse',
      message: expect.stringContaining('someone-else'),
    });
  });

  it('an error about a request the server could not read may carry a null id', async () => {
    const { client: agent } = client('JSONRPC', async () =>
      Response.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Invalid JSON payload' } }),
    );
    await expect(agent.getTask('t1')).rejects.toMatchObject({ kind: 'JSONParse' });
  });
});
