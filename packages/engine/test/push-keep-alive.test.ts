import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createGuardedAgent } from '../src/push/guarded-agent.ts';

// A receiver's `Keep-Alive: timeout=600` must not keep an idle socket open for ten minutes: with a
// tenant's many host names, one each, the process ran out of file descriptors for every tenant.
describe('idle connections of the guarded agent', () => {
  it('closes an idle socket after a few seconds although the receiver asks for ten minutes', async () => {
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204, { 'keep-alive': 'timeout=600' }).end());
    });
    receiver.keepAliveTimeout = 600_000;
    const connections: Array<Promise<void>> = [];
    receiver.on('connection', (socket) =>
      connections.push(new Promise((resolve) => socket.on('close', resolve))),
    );
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    const agent = createGuardedAgent({
      policy: { allowCidrs: ['127.0.0.0/8'], allowHttp: true },
      connectTimeoutMs: 5000,
      resolve: async () => [{ address: '127.0.0.1' }],
    });
    try {
      const res = await request(`http://hooks.keep-alive.test:${port}/`, {
        method: 'POST',
        body: '{}',
        dispatcher: agent,
      });
      await res.body.dump();
      expect(res.headers['keep-alive']).toBe('timeout=600');
      // Kept for reuse, then closed by the agent (the receiver would wait ten minutes): with
      // undici's 600 s ceiling the test times out here.
      expect(connections).toHaveLength(1);
      await connections[0];
    } finally {
      await agent.close();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
