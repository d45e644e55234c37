import type { DeliveryRecord } from '@switchyard/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleHarness } from './support/console-harness.ts';
import { bearer, getJson, startSignedInConsole } from './support/http-client.ts';

// A task that streams many small chunks to a few webhooks has one push delivery per (config,
// event): hundreds of thousands. The task page lists the latest and counts the rest, and its live
// update stays small: the whole table once passed the stream's 1 MiB buffer, which cut the stream,
// and the browser reconnected into the same cut, over and over.
let h: ConsoleHarness;
let base: string;

beforeAll(async () => {
  ({ h, base } = await startSignedInConsole());
});
afterAll(() => h.close());

type Counts = { pending: number; delivered: number; dead: number };

/**
 * A task (no worker: it stays submitted, its stream stays open) with `n` push deliveries of one
 * config, seq 1..n, in every status (test-only SQL: no pusher runs).
 */
async function taskWithDeliveries(n: number): Promise<string> {
  const { id } = await h.send('acme', 'echo', 'many chunks', { pushUrl: 'http://127.0.0.1:9/hook' });
  await h.db.pool.query(
    `INSERT INTO push_deliveries (tenant_id, task_id, config_id, seq, status)
     SELECT 'acme', $1, (SELECT config_id FROM push_deliveries WHERE tenant_id = 'acme' AND task_id = $1),
            g, (ARRAY['pending', 'delivered', 'dead'])[g % 3 + 1]
     FROM generate_series(2, $2::int) g`,
    [id, n],
  );
  return id;
}

async function countsOf(taskId: string): Promise<Counts> {
  const { rows: byStatus } = await h.db.pool.query<{ status: keyof Counts; n: number }>(
    'SELECT status, count(*)::int AS n FROM push_deliveries WHERE task_id = $1 GROUP BY status',
    [taskId],
  );
  return { pending: 0, delivered: 0, dead: 0, ...Object.fromEntries(byStatus.map((r) => [r.status, r.n])) };
}

type SseEvent = { event: string; data: string };

/** A stream's server-sent events, read as they come. Bounded: "never" fails instead of hanging. */
async function openEvents(path: string) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 20_000);
  const res = await fetch(`${base}${path}`, { headers: bearer(), signal: controller.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  return {
    /** Reads until `count` events named `name` have come; returns those. */
    async until(name: string, count: number): Promise<SseEvent[]> {
      for (;;) {
        const named = events.filter((e) => e.event === name);
        if (named.length >= count) return named;
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended after ${named.length} ${name} events`);
        buffer += value;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data !== undefined) events.push({ event, data });
        }
      }
    },
    close() {
      clearTimeout(timer);
      controller.abort();
    },
  };
}

const rows = (markup: string) => markup.match(/<tr data-delivery=/g)?.length ?? 0;

describe("a task's push deliveries", () => {
  it('lists the latest 100, in event order, with the count of each status', async () => {
    const id = await taskWithDeliveries(250);
    const counts = await countsOf(id);
    const detail = await getJson<{ deliveries: DeliveryRecord[]; deliveryCounts: Counts }>(
      `${base}/api/tasks/acme/${id}`,
    );
    expect(detail.body.deliveries.map((d) => d.seq)).toEqual(Array.from({ length: 100 }, (_, i) => 151 + i));
    expect(detail.body.deliveryCounts).toEqual(counts);
    const page = await (await fetch(`${base}/tasks/acme/${id}`, { headers: bearer() })).text();
    expect(rows(page)).toBe(100);
    expect(page).toContain(
      `${counts.pending} pending · ${counts.delivered} delivered · ${counts.dead} dead; the latest 100 are listed`,
    );
  });

  it('keeps the live update small past the count cap, and sends it again only when it changed', async () => {
    const id = await taskWithDeliveries(10_050);
    const stream = await openEvents(`/tasks/acme/${id}/stream?after=0&msg=0`);
    try {
      const [first] = await stream.until('deliveries', 1);
      expect(first?.data.length).toBeLessThan(128 * 1024);
      expect(rows(first?.data ?? '')).toBe(100);
      expect(first?.data).toContain('More than 10,000 deliveries, some pending');
      // Every poll re-reads; only a change goes out, so the next update is the one that shows it.
      await h.db.pool.query(
        `UPDATE push_deliveries SET status = 'dead', last_error = 'receiver gone for good'
         WHERE task_id = $1 AND seq = 10050`,
        [id],
      );
      const [, second] = await stream.until('deliveries', 2);
      expect(second?.data).toContain('receiver gone for good');
    } finally {
      stream.close();
    }
  });
});
