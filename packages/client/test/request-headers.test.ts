import { describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { A2AClient } from '../src/index.ts';
import { jsonRpcResult, scriptedAgentFetch, scriptedCard } from './support/scripted-agent.ts';

// Digest §6: every request carries A2A-Version, and the README promises that the caller's own
// headers win over the client's.
const TASK = { id: 't1', contextId: 'c1', status: { state: TaskState.COMPLETED } };

describe("the caller's headers replace the client's own", () => {
  // Found in review: a caller header whose name differed only in letter case was sent beside the
  // built-in one: A2A-Version went out as "1.0, 0.3", and SWITCHYARD_API_KEY plus
  // -H 'x-api-key: other' sent both keys.
  it('whatever the letter case of their names', async () => {
    const fetch = scriptedAgentFetch(async (request) => jsonRpcResult(request.body, TASK));
    const client = A2AClient.fromCard(scriptedCard(), {
      apiKey: 'from-the-environment',
      headers: { 'a2a-version': '0.3', 'x-api-key': 'other', accept: 'text/html' },
      fetch,
    });
    await client.getTask('t1');
    const sent = fetch.requests[0]?.headers;
    expect(sent?.get('a2a-version')).toBe('0.3');
    expect(sent?.get('x-api-key')).toBe('other');
    // Accept is the transport's: it must get JSON (or an event stream) back.
    expect(sent?.get('accept')).toBe('application/json');
  });
});
