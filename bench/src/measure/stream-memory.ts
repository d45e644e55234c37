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
   * (RSS with all − RSS with half − the young generation's growth) ÷ streams in the second half:
   * the slope leaves out what the first streams warm up once (code, pools). Each reading follows a
   * full garbage collection (through the inspector), so it counts what the streams retain. V8
   * sizes its young generation by the allocation rate (up to --max-semi-space-size), not by what
   * is retained, and a GC does not shrink it: grown from 1 to 4 MB between the readings, it added
   * 3 KB "per stream" to 1,000 streams. It is a per-process cost, so it is taken out and shown.
   */
  bytesPerStream: number;
  /** The same slope without taking the young generation's growth out. */
  rawRssBytesPerStream: number;
  /** The young generation's committed size at the two readings (from /metrics). */
  youngGeneration: { half: number; all: number } | null;
  /** The same slope of the gateway's V8 heap in use and of its memory outside the heap (/metrics). */
  heapBytesPerStream: number | null;
  externalBytesPerStream: number | null;
  errors: number;
}

/**
 * nodejs_heap_size_used_bytes, nodejs_external_memory_bytes and the new space's committed size
 * from the gateway's /metrics.
 */
async function heap(url: string): Promise<{ used: number; external: number; young: number } | null> {
  const text = await (await fetch(`${url}/metrics`).catch(() => null))?.text().catch(() => null);
  if (!text) return null;
  const value = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
  const used = value('nodejs_heap_size_used_bytes');
  const external = value('nodejs_external_memory_bytes');
  const young = Number(
    /^nodejs_heap_space_size_total_bytes\{[^}]*space="new"[^}]*\} (\S+)/m.exec(text)?.[1] ?? NaN,
  );
  return Number.isNaN(used) ? null : { used, external, young };
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
  const added = Math.max(1, all - first);
  const young =
    heapHalf && heapAll && !Number.isNaN(heapHalf.young + heapAll.young)
      ? { half: heapHalf.young, all: heapAll.young }
      : null;
  return {
    streams: r.opened,
    gatewayRss: { before, half, all: full },
    bytesPerStream: Math.round((full - half - (young ? young.all - young.half : 0)) / added),
    rawRssBytesPerStream: Math.round((full - half) / added),
    youngGeneration: young,
    heapBytesPerStream: heapHalf && heapAll ? Math.round((heapAll.used - heapHalf.used) / added) : null,
    externalBytesPerStream:
      heapHalf && heapAll ? Math.round((heapAll.external - heapHalf.external) / added) : null,
    errors: r.errors.count,
  };
}
