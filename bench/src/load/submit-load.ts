import { epochMs, Errors, submit, type Target } from './http.ts';
import type { SubmitResult } from './jobs.ts';

interface Recorder {
  ids: string[];
  sentAt: number[];
  latencyMs: number[];
  lateMs: number[];
  errors: Errors;
}

const recorder = (): Recorder => ({ ids: [], sentAt: [], latencyMs: [], lateMs: [], errors: new Errors() });

async function submitOne(
  r: Recorder,
  gateway: string,
  t: Target,
  agent: string,
  sentAt: number,
  push?: string,
) {
  try {
    const id = await submit(gateway, t, agent, push);
    r.ids.push(id);
    r.sentAt.push(sentAt);
    r.latencyMs.push(epochMs() - sentAt);
  } catch (err) {
    r.errors.add(err);
  }
}

const finish = (r: Recorder, started: number): SubmitResult => ({
  ids: r.ids,
  sentAt: r.sentAt,
  latencyMs: r.latencyMs,
  ...(r.lateMs.length ? { lateMs: r.lateMs } : {}),
  seconds: (epochMs() - started) / 1000,
  errors: r.errors.toJSON(),
});

/** Saturation: `clients` callers each submit, await the answer and submit again, for `durationMs`. */
export async function submitClosed(
  t: Target,
  agent: string,
  clients: number,
  durationMs: number,
  push?: string,
): Promise<SubmitResult> {
  const r = recorder();
  const started = epochMs();
  const until = started + durationMs;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const gateway = t.gateways[c % t.gateways.length]!;
      while (epochMs() < until) await submitOne(r, gateway, t, agent, epochMs(), push);
    }),
  );
  return finish(r, started);
}

/**
 * Open loop at a fixed offered rate: request i is due at start + i/rate whatever happened to the
 * earlier ones, and its latency counts from when it was due (no coordinated omission).
 */
export async function submitOpen(
  t: Target,
  agent: string,
  rate: number,
  durationMs: number,
  push?: string,
): Promise<SubmitResult> {
  const r = recorder();
  const started = epochMs();
  const total = Math.max(1, Math.round((rate * durationMs) / 1000));
  const inFlight: Array<Promise<void>> = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - epochMs();
    if (wait > 1) await new Promise((res) => setTimeout(res, wait));
    r.lateMs.push(Math.max(0, epochMs() - due));
    inFlight.push(submitOne(r, t.gateways[i % t.gateways.length]!, t, agent, due, push));
  }
  await Promise.all(inFlight);
  return finish(r, started);
}
