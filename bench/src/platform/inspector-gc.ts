import type { PlatformProcess } from './cluster.ts';

/** The inspector flag for a process whose garbage the bench collects before reading its memory. */
export const INSPECT_FLAG = '--inspect=127.0.0.1:0';

/**
 * Runs a full garbage collection in a platform process started with INSPECT_FLAG, through the
 * inspector protocol (HeapProfiler.collectGarbage), so a memory reading counts what is retained,
 * not what is merely uncollected. Nothing is added to the platform's own code for this.
 */
export async function collectGarbage(p: PlatformProcess): Promise<void> {
  const url = p.proc.lines.map((l) => /Debugger listening on (ws:\/\/\S+)/.exec(l)?.[1]).find(Boolean);
  if (!url) throw new Error(`${p.name} was not started with ${INSPECT_FLAG}`);
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error(`${p.name}: inspector connection failed`));
  });
  try {
    for (const id of [1, 2]) {
      const done = new Promise<void>((resolve) => {
        ws.onmessage = (m) => {
          if ((JSON.parse(String(m.data)) as { id?: number }).id === id) resolve();
        };
      });
      ws.send(JSON.stringify({ id, method: 'HeapProfiler.collectGarbage' }));
      await done;
    }
  } finally {
    ws.close();
  }
}
