import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { A2AClient } from '../src/index.ts';
import { ExitCode } from '../src/cli/exit-codes.ts';
import { runCli } from '../src/cli/run-cli.ts';
import { CARD_URL, jsonRpcResult, scriptedAgentFetch } from './support/scripted-agent.ts';

// The public card fetch (digest §4.4): what goes with it, and that an interrupt stops it.
const TASK = { id: 't1', contextId: 'c1', status: { state: TaskState.COMPLETED } };
const FAST = { retry: { baseDelayMs: 1, maxDelayMs: 2 } };

describe('the public card fetch', () => {
  // Found in review: the caller's -H / options.headers (Authorization, say) went with the card
  // fetch, although the card is public and the README says no credentials are sent there.
  it("sends A2A-Version but none of the caller's credentials; the agent's requests do", async () => {
    const fetch = scriptedAgentFetch(async (request) => jsonRpcResult(request.body, TASK));
    const client = await A2AClient.fromCardUrl(CARD_URL, {
      apiKey: 'k1',
      headers: { Authorization: 'Bearer s3cr3t', Cookie: 'session=1', 'A2A-Version': '1.0' },
      fetch,
    });
    await client.getTask('t1');
    const [card, call] = fetch.requests;
    expect(card?.url).toBe(CARD_URL);
    expect([...(card?.headers.keys() ?? [])].sort()).toEqual(['a2a-version', 'accept']);
    expect(call?.headers.get('authorization')).toBe('Bearer s3cr3t');
    expect(call?.headers.get('x-api-key')).toBe('k1');
  });

  // Found in review: fromCardUrl took no AbortSignal, so Ctrl-C while the card was fetched was
  // ignored until a second Ctrl-C.
  it('fromCardUrl stops when its signal aborts', async () => {
    const controller = new AbortController();
    const reason = new Error('interrupted');
    const hanging = (_url: string, init: RequestInit) => {
      const signal = init.signal;
      if (!signal) return Promise.reject(new Error('the card fetch was given no signal'));
      controller.abort(reason);
      return new Promise<Response>((_resolve, reject) => {
        if (signal.aborted) reject(signal.reason as Error);
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    };
    const connecting = A2AClient.fromCardUrl(
      CARD_URL,
      { fetch: hanging, ...FAST },
      { signal: controller.signal },
    );
    await expect(connecting).rejects.toBe(reason);
  });
});

describe('the CLI interrupted while it fetches the card', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('exits 130 at the first interrupt', async () => {
    let asked = false;
    // A server that takes the card request and never answers.
    server = createServer(() => {
      asked = true;
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const interrupt = new AbortController();
    const written: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => written.push(s) }, env: {} };
    const running = runCli(['get', `http://127.0.0.1:${port}/agents/acme/echo`, 't1'], io, interrupt.signal);
    await waitFor(() => asked, { what: 'the card request to arrive' });
    const reason = new Error('interrupted');
    reason.name = 'Interrupted';
    interrupt.abort(reason);
    expect(await running).toBe(ExitCode.INTERRUPTED);
  });
});
