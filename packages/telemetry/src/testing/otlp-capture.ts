import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as a process exported it, reduced to what trace-shape assertions need. */
export interface CapturedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  attributes: Record<string, unknown>;
}

export interface OtlpCapture {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the processes under test. */
  readonly endpoint: string;
  /**
   * Environment that makes a child process export here promptly in a format this reads:
   * OTLP http/json, a short batch delay.
   */
  readonly env: Record<string, string>;
  spans(): CapturedSpan[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: OtlpKeyValue[];
}
interface OtlpTraces {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

/**
 * A minimal OTLP/HTTP trace receiver for tests that run real processes (gateway, worker,
 * pusher) and assert that one task's spans form one trace across them. The processes run their
 * production tracing (startTracing) pointed here by the standard OTEL_* variables.
 */
export async function createOtlpCapture(): Promise<OtlpCapture> {
  const captured: CapturedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        captured.push(...parseTraces(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraces));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    },
    spans: () => [...captured],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function parseTraces(body: OtlpTraces): CapturedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs) => {
    const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        service,
        name: s.name,
        traceId: hexId(s.traceId),
        spanId: hexId(s.spanId),
        parentSpanId: s.parentSpanId ? hexId(s.parentSpanId) : '',
        attributes: attributesOf(s.attributes),
      })),
    );
  });
}

function attributesOf(list: OtlpKeyValue[] = []): Record<string, unknown> {
  return Object.fromEntries(
    list.map(({ key, value = {} }) => [
      key,
      value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue,
    ]),
  );
}

/** OTLP/JSON ids are hex by the spec; older exporters sent base64. Either way, hex out. */
function hexId(id: string): string {
  return /^[0-9a-f]+$/i.test(id) && (id.length === 32 || id.length === 16)
    ? id.toLowerCase()
    : Buffer.from(id, 'base64').toString('hex');
}
