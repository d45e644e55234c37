import { context, ROOT_CONTEXT, type Context, type TextMapGetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/** The W3C fields a queue job carries (packages/queue job-catalog.ts `RunTaskJob`). */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** Where a context is read from: a job's data (`RunTaskJob`), or Node's `IncomingHttpHeaders`. */
export type CarrierInput = TraceCarrier | Readonly<Record<string, unknown>>;

type Fields = Readonly<Record<string, unknown>>;

// Jobs are documented as W3C trace context whatever OTEL_PROPAGATORS says for HTTP, and the
// format must not depend on whether the SDK (and its global propagator) was started.
const w3c = new W3CTraceContextPropagator();

const getter: TextMapGetter<Fields> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
    return undefined;
  },
};

/**
 * The active trace context as W3C fields, to put into a job or an outgoing request. Empty when no
 * span is active (and then nothing should be written into the job).
 */
export function injectTraceContext(ctx: Context = context.active()): TraceCarrier {
  const carrier: Record<string, string> = {};
  w3c.inject(ctx, carrier, { set: (c, k, v) => (c[k] = v) });
  return {
    ...(carrier.traceparent ? { traceparent: carrier.traceparent } : {}),
    ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}),
  };
}

/**
 * A context whose parent is the span described by `carrier` (a job's data or request headers). A
 * missing or malformed `traceparent` gives `base` unchanged, so callers need no special case.
 * `base` defaults to the root context: a consumer must not inherit whatever happened to be active.
 */
export function extractTraceContext(
  carrier: CarrierInput | undefined,
  base: Context = ROOT_CONTEXT,
): Context {
  return carrier ? w3c.extract(base, carrier as Fields, getter) : base;
}

/** Runs `fn` with `ctx` active: spans started inside, and log lines written inside, join it. */
export function runInContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

/**
 * `fn`, to run in the context active now whenever it is called: an event listener (a response's
 * `close`) otherwise runs in whatever context its emitter carries, and a log line it writes would
 * carry no trace ids, or another request's.
 */
export function bindToActiveContext<F extends (...args: never[]) => unknown>(fn: F): F {
  return context.bind(context.active(), fn);
}

/** W3C traceparent: version, trace id, parent id, flags; all-zero ids are invalid. */
const TRACEPARENT = /^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
/** The W3C limit on a tracestate a vendor must propagate. */
const MAX_TRACESTATE = 512;

/**
 * The trace context to carry on with a piece of work: the active span's, or without one (tracing
 * off here) the caller's own, but only a well-formed one (a `tracestate` only beside it): any
 * header text would otherwise ride into every job and task row, and a caller's `tracestate`
 * would sit beside a `traceparent` that is not the one it belongs to.
 */
export function traceContextToCarry(callerCarrier: TraceCarrier = {}): TraceCarrier {
  const active = injectTraceContext();
  if (active.traceparent) return active;
  const { traceparent, tracestate } = callerCarrier;
  if (!traceparent || !TRACEPARENT.test(traceparent)) return {};
  return tracestate && tracestate.length <= MAX_TRACESTATE ? { traceparent, tracestate } : { traceparent };
}
