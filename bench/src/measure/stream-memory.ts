import type { IdleStreamsResult } from '../load/jobs.ts';
import { startLoad } from '../platform/load-generator.ts';
import { API_KEY, TENANT } from '../platform/bench-environment.ts';
import type { PlatformProcess } from '../platform/cluster.ts';
import { collectGarbage } from '../platform/inspector-gc.ts';
import { readMemory } from '../platform/proc-stats.ts';

export interface StreamMemory {
  streams: number;
  /** Gateway resident size before any stream, with half of them, and with all of them open. */
  gatewayRss: { before: number; half: number; all: number };
  /**
   * (RSS with all − RSS with half) ÷ streams in the second half: the slope leaves out what the
   * first streams warm up once (code, pools). Each reading follows a full garbage collection
   * (through the inspector), so it counts what the streams retain.
   */
  bytesPerStream: number;
  /** The same slope of the gateway's V8 heap in use and of its memory outside the heap (/metrics). */
  heapBytesPerStream: number | null;
  externalBytesPerStream: number | null;
  errors: number;
}

/** nodejs_heap_size_used_bytes and nodejs_external_memory_bytes from the gateway's /metrics. */
async function heap(url: string): Promise<{ used: number; external: number } | null> {
  const text = await (await fetch(`${url}/metrics`).catch(() => null))?.text().catch(() => null);
  if (!text) return null;
  const value = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
  const used = value('nodejs_heap_size_used_bytes');
  const external = value('nodejs_external_memory_bytes');
  return Number.isNaN(used) ? null : { used, external };
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Gateway memory per open idle stream, from its resident size as streams are added. */
export async function measureStreamMemory(
  gateway: PlatformProcess,
  tasks: number,
  streamsPerTask: number,
): Promise<StreamMemory> {
  await settle(1000);
  const rss = () => readMemory(gateway.pid)!.rss;
  const before = rss();
  const run = startLoad<IdleStreamsResult>({
    kind: 'idle-streams',
    gateways: [gateway.url],
    key: API_KEY,
    tenant: TENANT,
    agent: 'idle',
    tasks,
    streamsPerTask,
  });
  const first = Number((await run.nextEvent()).opened);
  await settle(2000);
  await collectGarbage(gateway);
  const half = rss();
  const heapHalf = await heap(gateway.url);
  run.tell('more');
  const all = Number((await run.nextEvent()).opened);
  await settle(2000);
  await collectGarbage(gateway);
  const full = rss();
  const heapAll = await heap(gateway.url);
  run.tell('close');
  const r = await run.result;
  return {
    streams: r.opened,
    gatewayRss: { before, half, all: full },
    bytesPerStream: Math.round((full - half) / Math.max(1, all - first)),
    heapBytesPerStream:
      heapHalf && heapAll ? Math.round((heapAll.used - heapHalf.used) / Math.max(1, all - first)) : null,
    externalBytesPerStream:
      heapHalf && heapAll
        ? Math.round((heapAll.external - heapHalf.external) / Math.max(1, all - first))
        : null,
    errors: r.errors.count,
  };
}
