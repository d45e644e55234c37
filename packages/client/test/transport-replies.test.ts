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
