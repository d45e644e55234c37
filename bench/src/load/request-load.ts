import { epochMs, Errors, newMessage, rpc, type Target } from './http.ts';
import type { RequestResult } from './jobs.ts';

export type RequestOp = 'blocking' | 'get' | 'list';

/** One call of the measured kind; blocking SendMessage waits for the echo task to finish. */
function call(op: RequestOp, gateway: string, t: Target, agent: string, taskIds: string[], i: number) {
  if (op === 'blocking') return rpc(gateway, t, agent, 'SendMessage', { message: newMessage('bench') });
  if (op === 'get')
    return rpc(gateway, t, agent, 'GetTask', { id: taskIds[i % taskIds.length], historyLength: 1 });
  return rpc(gateway, t, agent, 'ListTasks', { pageSize: 50 });
}

/** Closed loop: `clients` callers repeat the call for `durationMs`. */
export async function requestLoad(
  t: Target,
  op: RequestOp,
  agent: string,
  clients: number,
  durationMs: number,
  taskIds: string[],
): Promise<RequestResult> {
  const latencyMs: number[] = [];
  const errors = new Errors();
  const started = epochMs();
  const until = started + durationMs;
  let n = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const gateway = t.gateways[c % t.gateways.length]!;
      while (epochMs() < until) {
        const t0 = epochMs();
        try {
          await call(op, gateway, t, agent, taskIds, n++);
          latencyMs.push(epochMs() - t0);
        } catch (err) {
          errors.add(err);
        }
      }
    }),
  );
  return { latencyMs, seconds: (epochMs() - started) / 1000, errors: errors.toJSON() };
}
