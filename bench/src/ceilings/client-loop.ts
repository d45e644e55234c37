/**
 * `clients` concurrent loops, each doing `perClient` operations on its own slice of the data, so
 * a ceiling measures the engine and not contention the benchmark made up.
 */
export async function clientLoops(
  clients: number,
  perClient: number,
  op: (client: number, i: number) => Promise<void>,
): Promise<{ seconds: number; latencyMs: number[] }> {
  const latencyMs: number[] = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; i < perClient; i++) {
        const t0 = performance.now();
        await op(c, i);
        latencyMs.push(performance.now() - t0);
      }
    }),
  );
  return { seconds: (performance.now() - start) / 1000, latencyMs };
}
