import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentHarness } from '@switchyard/agents';
import { createSecretBox } from '@switchyard/store';
import { createUpstreamAgent } from '../../src/upstream-agent.ts';

/** A request the raw upstream received. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type RawHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export interface RawUpstream {
  url: string;
  seen: SeenRequest[];
  /** Serves `path` with `handler` (replacing any earlier one). */
  route(path: string, handler: RawHandler): void;
  stop(): Promise<void>;
}

/** A bare HTTP server on loopback, answering whatever a test routes, recording every request. */
export async function startRawUpstream(): Promise<RawUpstream> {
  const routes = new Map<string, RawHandler>();
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      seen.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
      const handler = routes.get(path);
      if (!handler) {
        res.writeHead(404).end();
        return;
      }
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    route: (path, handler) => routes.set(path, handler),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const json =
  (value: unknown, status = 200): RawHandler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  };

/** A valid 1.0 card whose one interface is `${base}/rpc` (JSON-RPC, not streaming). */
export function card(base: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Ledger',
    description: 'Posts ledger entries',
    version: '2.0.0',
    supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'ledger', name: 'Ledger', description: 'Posts entries', tags: ['finance'] }],
    ...extra,
  };
}

/**
 * A JSON-RPC A2A 1.0 endpoint whose every task completes at once: SendMessage and GetTask answer
 * with a COMPLETED task. Enough for a run to go through.
 */
export const completingRpc: RawHandler = (_req, res, body) => {
  const request = JSON.parse(body) as {
    id: unknown;
    method: string;
    params: { message?: { messageId: string } };
  };
  const task = {
    id: 'up-task-1',
    contextId: 'up-ctx-1',
    status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() },
  };
  const result = request.method === 'SendMessage' ? { task } : task;
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result }));
};

/**
 * Streams `prefix`, then `mb` MiB of padding, then `suffix`, honouring backpressure and stopping
 * when the client goes; `sent()` says how many bytes were handed to the socket.
 */
export function streamed(prefix: string, mb: number, suffix: string, status = 200) {
  let sent = 0;
  const handler: RawHandler = (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.write(prefix);
    const chunk = 'a'.repeat(1024 * 1024);
    let i = 0;
    let closed = false;
    res.on('close', () => (closed = true));
    const pump = () => {
      while (i < mb && !closed) {
        i++;
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      if (!closed) res.end(suffix);
    };
    pump();
  };
  return { handler, sent: () => sent };
}

/** Answers a JSON-RPC request with `result`. */
export function rpcResult(res: http.ServerResponse, id: unknown, result: unknown): void {
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id, result }));
}

/**
 * An a2a-upstream agent in an AgentHarness, calling `up`: its card at /card.json (one JSON-RPC
 * interface, not streaming) and its JSON-RPC endpoint at /rpc served by `rpc`, polled fast.
 */
export function upstreamHarness(
  up: RawUpstream,
  rpc: RawHandler,
  options: { cardTtlMs?: number } = {},
): AgentHarness {
  up.route('/rpc', rpc);
  up.route('/card.json', json(card(up.url)));
  const agent = createUpstreamAgent({
    secrets: createSecretBox('test-secret-key-0123456789'),
    policy: { allowCidrs: ['127.0.0.1/32'], allowHttp: true },
    timings: { pollMinMs: 5, pollMaxMs: 10 },
    ...options,
  });
  return new AgentHarness(agent, { settings: { cardUrl: `${up.url}/card.json` } });
}
