import type { Scenario } from './check-types.ts';
import { createRng } from './rng.ts';
import { blocking, cancel, inputRequired, nonBlocking, reply } from './scenarios.ts';
import { streaming, type StreamingDeps } from './streaming.ts';

const SCENARIOS: Record<Scenario, (d: StreamingDeps) => Promise<void>> = {
  blocking,
  nonblocking: (d) => nonBlocking(d, 'nonblocking'),
  push: (d) => nonBlocking(d, 'push'),
  streaming,
  'input-required': inputRequired,
  cancel,
  reply,
};
const NAMES = Object.keys(SCENARIOS) as Scenario[];

/**
 * `clients` concurrent clients, each running one scenario after another (seeded per client)
 * until `stop()`; resolves when every client has finished its last scenario.
 */
export async function runWorkload(
  deps: Omit<StreamingDeps, 'rng'>,
  { clients, seed, stop }: { clients: number; seed: number; stop: () => boolean },
): Promise<void> {
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const rng = createRng(seed * 1000 + i + 1);
      const d: StreamingDeps = { ...deps, rng };
      // Each client starts with a different scenario so every kind runs even in a short run.
      for (let n = 0; !stop(); n++) await SCENARIOS[n === 0 ? NAMES[i % NAMES.length]! : rng.pick(NAMES)](d);
    }),
  );
}
