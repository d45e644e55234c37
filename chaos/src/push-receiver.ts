import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PushReceived } from './check-types.ts';
import type { Rng } from './rng.ts';

export interface PushReceiver {
  url: string;
  received: PushReceived[];
  close(): Promise<void>;
}

/**
 * The run's webhook receiver. It records every POST by its webhook-id (`task.config.seq`) and
 * sometimes answers 503, so the pusher's retries are part of the run too.
 */
export async function startPushReceiver(rng: Rng, failRate = 0.05): Promise<PushReceiver> {
  const received: PushReceived[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      const first = id.indexOf('.');
      const last = id.lastIndexOf('.');
      if (rng.chance(failRate)) {
        res.writeHead(503).end();
        return;
      }
      received.push({
        taskId: id.slice(0, first),
        configId: id.slice(first + 1, last),
        seq: Number(id.slice(last + 1)),
        at: Date.now(),
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
