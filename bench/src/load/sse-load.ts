import { createInterface } from 'node:readline';
import { epochMs, Errors, rpc, submit, subscribe, type Target } from './http.ts';
import type { FanoutResult, IdleStreamsResult } from './jobs.ts';
import { readSse } from './read-sse.ts';

/** The snapshot a stream starts with is a Task; every later event carries `id:` = its sequence. */
const isSnapshot = (data: string) => data.startsWith('{"task"');

/**
 * Fan-out: `tasks` tasks that emit progress events, each watched by `streamsPerTask` SSE clients,
 * all on the first gateway. Every event after the snapshot is recorded with the time it was read.
 */
export async function fanout(
  t: Target,
  agent: string,
  tasks: number,
  streamsPerTask: number,
): Promise<FanoutResult> {
  const gateway = t.gateways[0]!;
  const errors = new Errors();
  const received: Array<[number, number, number]> = [];
  const taskIds: string[] = [];
  const streams: Array<Promise<void>> = [];
  const started = epochMs();
  for (let i = 0; i < tasks; i++) {
    const taskId = await submit(gateway, t, agent);
    taskIds.push(taskId);
    for (let s = 0; s < streamsPerTask; s++) {
      streams.push(
        subscribe(gateway, t, agent, taskId)
          .then((res) =>
            readSse(res, (id, data) => {
              if (id !== undefined && !isSnapshot(data)) received.push([i, Number(id), epochMs()]);
            }),
          )
          .catch((err: unknown) => errors.add(err)),
      );
    }
  }
  await Promise.all(streams);
  return {
    taskIds,
    streams: tasks * streamsPerTask,
    received,
    seconds: (epochMs() - started) / 1000,
    errors: errors.toJSON(),
  };
}

/**
 * Idle streams for the gateway's memory per stream, opened in two equal halves on tasks that emit
 * nothing. After each half it prints {"event":"open","opened":n} and waits for a line on stdin;
 * after the second it cancels the tasks (freeing the worker slots) and closes the streams.
 */
export async function idleStreams(
  t: Target,
  agent: string,
  tasks: number,
  streamsPerTask: number,
): Promise<IdleStreamsResult> {
  const gateway = t.gateways[0]!;
  const errors = new Errors();
  const abort = new AbortController();
  const taskIds: string[] = [];
  let opened = 0;
  const open = (taskId: string) =>
    new Promise<void>((resolve) => {
      subscribe(gateway, t, agent, taskId, abort.signal)
        .then((res) =>
          readSse(res, (_id, data) => {
            if (isSnapshot(data)) {
              opened += 1;
              resolve();
            }
          }),
        )
        .catch((err: unknown) => {
          if (!abort.signal.aborted) errors.add(err);
          resolve();
        });
    });
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  for (let i = 0; i < tasks; i++) taskIds.push(await submit(gateway, t, agent));
  const half = Math.ceil(streamsPerTask / 2);
  for (const batch of [half, streamsPerTask - half]) {
    await Promise.all(taskIds.flatMap((id) => Array.from({ length: batch }, () => open(id))));
    process.stdout.write(`${JSON.stringify({ event: 'open', opened })}\n`);
    await lines.next();
  }
  for (const id of taskIds)
    await rpc(gateway, t, agent, 'CancelTask', { id }).catch((err: unknown) => errors.add(err));
  abort.abort();
  return { taskIds, opened, errors: errors.toJSON() };
}
