import { describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@switchyard/protocol';
import { NetworkError } from '../src/index.ts';
import { followTask } from '../src/run/follow-task.ts';
import type { A2ATransport, StreamEvent } from '../src/transport/transport.ts';

// followTask against a scripted server, for what the platform itself never does: number each
// connection's events from 0 again (the a2a-java servers), or go away for good.
const TASK_ID = '11111111-1111-4111-8111-111111111111';
const task = (state: TaskState, artifacts: Task['artifacts'] = []): Task => ({
  id: TASK_ID,
  contextId: 'ctx',
  status: { state },
  artifacts,
  history: [],
});

function scriptedTransport(connections: StreamEvent[][], getTask: () => Promise<Task>): A2ATransport {
  let next = 0;
  return {
    binding: 'JSONRPC',
    url: 'http://scripted',
    getTask,
    async *subscribeToTask() {
      const events = connections[next++];
      if (!events) throw new NetworkError('no more connections');
      yield* events;
    },
  } as unknown as A2ATransport;
}

const follow = (transport: A2ATransport, streaming: boolean, onEvent: (e: StreamEvent) => void = () => {}) =>
  followTask({
    transport,
    taskId: TASK_ID,
    streaming,
    options: {
      onEvent,
      reconnectBackoff: { baseDelayMs: 1, maxDelayMs: 2 },
      pollBackoff: { baseDelayMs: 1, maxDelayMs: 2 },
    },
    signal: new AbortController().signal,
    holder: {},
  });

describe('followTask', () => {
  // Found in review: ids seen on one connection were dropped on the next, so a server that numbers
  // each connection from 0 lost every event after a reconnect that reused an id.
  it('takes the events after a new snapshot even when their ids were seen on an earlier connection', async () => {
    const artifact = { artifactId: 'a', parts: [{ text: 'chunk' }] };
    const events: StreamEvent[] = [];
    const done = task(TaskState.COMPLETED, [artifact]);
    const transport = scriptedTransport(
      [
        [
          { id: '0', response: { task: task(TaskState.WORKING) } },
          {
            id: '1',
            response: {
              statusUpdate: { taskId: TASK_ID, contextId: 'ctx', status: { state: TaskState.WORKING } },
            },
          },
        ],
        [
          { id: '0', response: { task: task(TaskState.WORKING) } },
          { id: '1', response: { artifactUpdate: { taskId: TASK_ID, contextId: 'ctx', artifact } } },
          {
            id: '2',
            response: {
              statusUpdate: { taskId: TASK_ID, contextId: 'ctx', status: { state: TaskState.COMPLETED } },
            },
          },
        ],
      ],
      () => Promise.resolve(done),
    );
    expect(await follow(transport, true, (e) => events.push(e))).toEqual(done);
    expect(events.filter((e) => e.response.artifactUpdate)).toHaveLength(1);
  });

  // Found in review: every connection that brought an event counted as progress, so a stream that
  // only restated the same snapshot and ended (Switchyard closes at INPUT_REQUIRED) was reopened
  // forever, and the polling fallback never came.
  it('falls back to polling when connections only restate the snapshot it already has', async () => {
    const asked = {
      ...task(TaskState.INPUT_REQUIRED),
      status: { state: TaskState.INPUT_REQUIRED, timestamp: 't1' },
    };
    const answered = task(TaskState.COMPLETED);
    let reads = 0;
    const snapshot = (): StreamEvent[] => [{ response: { task: asked } }];
    // A connection limit stands in for "forever": past it, no more connections.
    const transport = scriptedTransport(Array.from({ length: 20 }, snapshot), () =>
      Promise.resolve(++reads === 1 ? asked : answered),
    );
    const notices: string[] = [];
    const done = await followTask({
      transport,
      taskId: TASK_ID,
      streaming: true,
      options: {
        onNotice: (n) => notices.push(n.type),
        reconnectBackoff: { baseDelayMs: 1, maxDelayMs: 2 },
        pollBackoff: { baseDelayMs: 1, maxDelayMs: 2 },
      },
      signal: new AbortController().signal,
      holder: {},
      // The status a follow-up message answers: restating it is no news.
      staleStatus: 'TASK_STATE_INPUT_REQUIRED|t1|',
    });
    expect(done).toEqual(answered);
    expect(notices).toEqual(['reconnecting', 'reconnecting', 'polling']);
  });

  it('gives up polling a server that stays away, with its last error, instead of polling forever', async () => {
    let reads = 0;
    const transport = scriptedTransport([], () => {
      reads++;
      return Promise.reject(new NetworkError('connection refused'));
    });
    await expect(follow(transport, false)).rejects.toThrow('connection refused');
    expect(reads).toBe(5);
  });
});
