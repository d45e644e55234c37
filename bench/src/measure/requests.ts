import type { RequestResult } from '../load/jobs.ts';
import type { RequestOp } from '../load/request-load.ts';
import { runLoad } from '../platform/load-generator.ts';
import { API_KEY, TENANT } from '../platform/bench-environment.ts';
import { throughput, type Throughput } from '../stats.ts';

export interface RequestFigures extends Throughput {
  clients: number;
  errors: number;
  firstError?: string;
}

/** Closed-loop blocking SendMessage, GetTask or ListTasks over JSON-RPC. */
export async function measureRequests(
  op: RequestOp,
  gateways: string[],
  clients: number,
  durationMs: number,
  taskIds: string[],
): Promise<RequestFigures> {
  const r = await runLoad<RequestResult>({
    kind: 'requests',
    gateways,
    key: API_KEY,
    tenant: TENANT,
    op,
    agent: 'echo',
    clients,
    durationMs,
    // The job travels as one command-line argument (at most 128 KB): GetTask reads from an even
    // sample of at most 1,000 of the saturation run's tasks.
    taskIds: sample(taskIds, 1000),
  });
  return {
    ...throughput({ ops: r.latencyMs.length, seconds: r.seconds, latencyMs: r.latencyMs }),
    clients,
    errors: r.errors.count,
    ...(r.errors.first ? { firstError: r.errors.first } : {}),
  };
}

function sample<T>(items: T[], max: number): T[] {
  if (items.length <= max) return items;
  const step = items.length / max;
  return Array.from({ length: max }, (_, i) => items[Math.floor(i * step)]!);
}
