import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MATCHES_ARTIFACT_ID,
  MATCHES_ARTIFACT_NAME,
  ROUNDING_QUESTION,
  TRAVELLERS_QUESTION,
} from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import {
  A2AClient,
  ArtifactAssembler,
  collectArtifacts,
  RunTimeoutError,
  textOf,
  userMessage,
  type RunNotice,
  type StreamEvent,
  type SupportedBinding,
} from '../src/index.ts';
import { waitFor } from '@switchyard/testing';
import { startPlatform, type Platform } from './support/platform.ts';
import { isSend, isSubscribe, recordingFetch } from './support/recording-fetch.ts';

// The safe pattern (issue 7): run() sends with returnImmediately, follows over SSE and returns the
// settled task; the helpers for the input-required flow and chunked artifacts.
let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform?.stop();
});

const connect = (agent: string, transport: SupportedBinding, fetch?: ReturnType<typeof recordingFetch>) =>
  A2AClient.fromCardUrl(platform.cardUrl(agent), {
    apiKey: platform.apiKey,
    transport,
    ...(fetch ? { fetch } : {}),
  });

describe.each<SupportedBinding>(['JSONRPC', 'HTTP+JSON'])('run() over %s', (binding) => {
  it('sends non-blocking, streams progress and returns the COMPLETED task with whole artifacts', async () => {
    const fetch = recordingFetch();
    const slow = await connect('slow', binding, fetch);
    const events: StreamEvent[] = [];
    const result = await slow.run(userMessage('go'), { onEvent: (e) => events.push(e) });
    const task = result.task;
    expect(task?.status.state).toBe(TaskState.COMPLETED);
    expect(textOf(task?.status.message?.parts)).toBe('done after 1500 ms');
    expect(task?.artifacts?.find((a) => a.artifactId === 'progress')?.parts.map((p) => p.text)).toEqual([
      'step 1/3',
      'step 2/3',
      'step 3/3',
    ]);
    // The send was non-blocking and progress came over one subscription, event by event.
    const send = fetch.requests.find(isSend);
    expect(JSON.parse(send?.body ?? '{}')).toMatchObject(
      binding === 'JSONRPC'
        ? { params: { configuration: { returnImmediately: true } } }
        : { configuration: { returnImmediately: true } },
    );
    expect(fetch.requests.filter(isSubscribe)).toHaveLength(1);
    expect(events.filter((e) => e.response.artifactUpdate)).toHaveLength(3);
    expect(
      events.filter((e) => e.response.statusUpdate?.status.state === TaskState.WORKING).length,
    ).toBeGreaterThanOrEqual(3);
    const ids = events.flatMap((e) => (e.id === undefined ? [] : [e.id]));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sendAndWait returns a Message reply as {message}', async () => {
    const echo = await connect('echo', binding);
    const result = await echo.sendAndWait('reply');
    // With returnImmediately the platform answers with a task (ARCHITECTURE.md §5); either shape is a valid reply.
    const text = result.message ? textOf(result.message.parts) : textOf(result.task?.status.message?.parts);
    expect(text).toBe('reply');
    if (result.task) expect(result.task.status.state).toBe(TaskState.COMPLETED);
  });

  it('input-required flow: run() stops at INPUT_REQUIRED, continueTask() finishes the same task', async () => {
    const booking = await connect('booking', binding);
    const first = await booking.sendAndWait('book a flight to Paris');
    const task = first.task;
    expect(task?.status.state).toBe(TaskState.INPUT_REQUIRED);
    expect(textOf(task?.status.message?.parts)).toBe(TRAVELLERS_QUESTION);
    if (!task) return;
    const second = await booking.continueTask(task, '2');
    expect(second.task).toMatchObject({
      id: task.id,
      contextId: task.contextId,
      status: { state: TaskState.COMPLETED },
    });
  });

  it("ArtifactAssembler rebuilds matches.json from the invoice agent's 3 streamed chunks", async () => {
    const invoices = await connect('invoices', binding);
    const events: StreamEvent[] = [];
    const assembler = new ArtifactAssembler();
    const result = await invoices.sendAndWait('reconcile', {
      onEvent: (e) => {
        events.push(e);
        assembler.apply(e);
      },
    });
    const chunks = events.filter(
      (e) => e.response.artifactUpdate?.artifact.artifactId === MATCHES_ARTIFACT_ID,
    );
    // run() subscribes after a non-blocking send, so the snapshot may already hold the first
    // chunks (or all of them, if the agent was quick): the chunk events seen are a suffix of the
    // three the agent streams, and the assembler rebuilds the same artifact either way.
    const expected = [
      [false, false],
      [true, false],
      [true, true],
    ];
    expect(
      chunks.map((e) => [
        e.response.artifactUpdate?.append ?? false,
        e.response.artifactUpdate?.lastChunk ?? false,
      ]),
    ).toEqual(expected.slice(expected.length - chunks.length));
    const matches = assembler.get(MATCHES_ARTIFACT_ID);
    expect(matches?.name).toBe(MATCHES_ARTIFACT_NAME);
    expect(matches?.parts).toHaveLength(3);
    if (chunks.length === 3) {
      expect(assembler.isComplete(MATCHES_ARTIFACT_ID)).toBe(true);
      expect(assembler.chunkCount(MATCHES_ARTIFACT_ID)).toBe(3);
    }
    // The assembled artifact is the one the server stored.
    expect(matches?.parts).toEqual(
      result.task?.artifacts?.find((a) => a.artifactId === MATCHES_ARTIFACT_ID)?.parts,
    );
    expect(collectArtifacts(events).find((a) => a.artifactId === MATCHES_ARTIFACT_ID)?.parts).toEqual(
      matches?.parts,
    );
    expect(Object.keys((matches?.parts[2]?.data ?? {}) as object)).toEqual(['summary']);
    // The sample input has small unmatched invoices: the agent asks, and a yes completes the task.
    expect(textOf(result.task?.status.message?.parts)).toBe(ROUNDING_QUESTION);
    const done = await invoices.continueTask(result.task ?? { id: '', contextId: '' }, 'yes');
    expect(done.task?.status.state).toBe(TaskState.COMPLETED);
  });

  it('collectArtifacts works on a live stream too', async () => {
    const invoices = await connect('invoices', binding);
    const artifacts = await collectArtifacts(
      invoices.sendStreamingMessage({ message: userMessage('reconcile') }),
    );
    expect(artifacts.find((a) => a.artifactId === MATCHES_ARTIFACT_ID)?.parts).toHaveLength(3);
  });
});

describe('run() options', () => {
  it('stream: false follows by polling GetTask only', async () => {
    const fetch = recordingFetch();
    const slow = await connect('slow', 'JSONRPC', fetch);
    const notices: RunNotice[] = [];
    const result = await slow.run(userMessage('poll me'), {
      stream: false,
      onNotice: (n) => notices.push(n),
    });
    expect(result.task?.status.state).toBe(TaskState.COMPLETED);
    expect(fetch.requests.filter(isSubscribe)).toHaveLength(0);
    expect(notices.map((n) => n.type)).toEqual(['polling']);
  });

  it('a task that settled before its subscribe comes back without a polling notice', async () => {
    // The subscribe leaves only once the task is COMPLETED, so the server answers it with
    // UnsupportedOperation (digest §7.6 rule 30): nothing to poll for, and nothing to tell.
    const plain = await connect('echo', 'HTTP+JSON');
    const fetch = recordingFetch(async (request, forward) => {
      const taskId = /tasks\/([^/:]+):subscribe/.exec(request.url)?.[1];
      if (taskId)
        await waitFor(async () => (await plain.getTask(taskId)).status.state === TaskState.COMPLETED, {
          what: 'the task to settle before its subscribe',
        });
      return forward();
    });
    const echo = await connect('echo', 'HTTP+JSON', fetch);
    const notices: RunNotice[] = [];
    const result = await echo.run(userMessage('quick'), { onNotice: (n) => notices.push(n) });
    expect(result.task?.status.state).toBe(TaskState.COMPLETED);
    expect(fetch.requests.filter(isSubscribe)).toHaveLength(1);
    expect(notices).toEqual([]);
  });

  it('timeoutMs gives up with RunTimeoutError carrying the task as last seen', async () => {
    const sleepy = await connect('sleepy', 'HTTP+JSON');
    const error = await sleepy.sendAndWait('sleep', { timeoutMs: 700 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunTimeoutError);
    const task = (error as RunTimeoutError).task;
    expect([TaskState.SUBMITTED, TaskState.WORKING]).toContain(task?.status.state);
    await sleepy.cancelTask(task?.id ?? '');
  });

  it("an abort signal ends run() with the signal's reason", async () => {
    const sleepy = await connect('sleepy', 'JSONRPC');
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    const running = sleepy.sendAndWait('sleep', {
      signal: controller.signal,
      onEvent: (e) => {
        events.push(e);
        controller.abort(new Error('stop'));
      },
    });
    await expect(running).rejects.toThrow('stop');
    await sleepy.cancelTask(events[0]?.response.task?.id ?? '');
  });
});
