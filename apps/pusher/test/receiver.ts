import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST as the receiver saw it. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Arrival time (ms since epoch). */
  at: number;
  /** Sequence number of the delivered event, from the webhook-id (`task.config.seq`). */
  seq: number;
  taskId: string;
  configId: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Wait before answering (a slow receiver). */
  delayMs?: number;
}

export type Responder = (req: Received, index: number) => Reply | Promise<Reply>;

export interface Receiver {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  port: number;
  requests: Received[];
  /** Requests received and not yet answered. */
  readonly pending: number;
  /** Replaced at will by a test. */
  respond: Responder;
  close(): Promise<void>;
}

/** A real webhook receiver on 127.0.0.1 that records every request and answers as `respond` says. */
export async function startReceiver(respond: Responder = () => ({ status: 204 })): Promise<Receiver> {
  const requests: Received[] = [];
  let pending = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '..0');
      const [taskId = '', configId = '', seq = '0'] = splitDeliveryId(id);
      const received: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        seq: Number(seq),
        taskId,
        configId,
      };
      requests.push(received);
      pending += 1;
      void (async () => {
        try {
          const reply = await receiver.respond(received, requests.length - 1);
          if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
          res.writeHead(reply.status, reply.headers ?? {});
          res.end();
        } catch {
          res.destroy();
        } finally {
          pending -= 1;
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    get pending() {
      return pending;
    },
    respond,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}

/** taskId is a uuid and seq an integer, so the config id is whatever lies between. */
function splitDeliveryId(id: string): [string, string, string] {
  const first = id.indexOf('.');
  const last = id.lastIndexOf('.');
  return [id.slice(0, first), id.slice(first + 1, last), id.slice(last + 1)];
}

/** First-seen order of seqs for one task (duplicates from at-least-once delivery dropped). */
export function firstSeen(requests: readonly Received[], taskId: string, configId?: string): number[] {
  const seen = new Set<number>();
  const order: number[] = [];
  for (const r of requests) {
    if (r.taskId !== taskId || (configId !== undefined && r.configId !== configId) || seen.has(r.seq))
      continue;
    seen.add(r.seq);
    order.push(r.seq);
  }
  return order;
}
