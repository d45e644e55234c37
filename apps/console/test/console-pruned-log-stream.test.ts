import { TaskState } from '@switchyard/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleHarness } from './support/console-harness.ts';
import { bearer, startSignedInConsole } from './support/http-client.ts';

// A finished task older than the event-log retention has lost some or all of its events. Its live
// stream must still end ("Up to date · task finished"): a finished task's log never grows, so the
// missing events are noted, not waited for (a stream left open polls Postgres for every tab).
let h: ConsoleHarness;
let base: string;

beforeAll(async () => {
  ({ h, base } = await startSignedInConsole());
});
afterAll(() => h.close());

/** A canceled task (two events: created, canceled) whose events up to `upTo` retention pruned. */
async function prunedTask(upTo: number): Promise<string> {
  const { id } = await h.send('acme', 'echo', 'old and finished');
  await fetch(`${base}/api/tasks/acme/${id}/cancel`, { method: 'POST', headers: bearer() });
  const record = await h.tasks.getTaskRecord('acme', id);
  expect([record?.state, record?.version]).toEqual([TaskState.CANCELED, 2]);
  // What retention's delete-expired-events does to an old log, oldest first (test-only SQL).
  await h.db.pool.query('DELETE FROM task_events WHERE tenant_id = $1 AND task_id = $2 AND seq <= $3', [
    'acme',
    id,
    upTo,
  ]);
  return id;
}

/**
 * The whole stream, as the server ends it. The bound only turns "never ends" into a failure
 * instead of a hung test; a stream that ends does so at once.
 */
async function wholeStream(path: string): Promise<{ events: string[]; text: string }> {
  const res = await fetch(`${base}${path}`, { headers: bearer(), signal: AbortSignal.timeout(15_000) });
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const text = await res.text();
  return { events: [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1] ?? ''), text };
}

describe('the live stream of a finished task whose log retention pruned', () => {
  it('ends when no event is left, from where the page leaves it', async () => {
    const id = await prunedTask(2);
    const page = await (await fetch(`${base}/tasks/acme/${id}`, { headers: bearer() })).text();
    const src = /data-live-src="([^"]+)"/.exec(page)?.[1]?.replaceAll('&amp;', '&');
    expect(src).toBe(`/tasks/acme/${id}/stream?after=0&msg=0`);
    const { events } = await wholeStream(src ?? '');
    expect(events.at(-1)).toBe('end');
  });

  it('ends on a resume whose next events are gone, with a note and what is left', async () => {
    const id = await prunedTask(1);
    // The client saw nothing yet (Last-Event-ID 0); event 1 is gone, event 2 (canceled) is left.
    const { events, text } = await wholeStream(`/tasks/acme/${id}/stream?after=0&msg=0`);
    expect(events.at(-1)).toBe('end');
    expect(text).toContain('1 earlier event is no longer in the event log');
    expect(text).toContain('id: 2\nevent: entry');
  });
});
