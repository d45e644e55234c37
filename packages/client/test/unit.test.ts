import { describe, expect, it } from 'vitest';
import { A2AError, TaskState, type StreamResponse } from '@switchyard/protocol';
import {
  A2AResponseError,
  ArtifactAssembler,
  fullJitterDelay,
  HttpClient,
  isTransient,
  NetworkError,
  resolveRetryOptions,
  retryAfterSeconds,
  withRetry,
} from '../src/index.ts';
import { errorFromReply } from '../src/errors/decode-error.ts';
import { readSse } from '../src/sse/read-sse.ts';
import { ExitCode, exitCodeForError, exitCodeForState } from '../src/cli/exit-codes.ts';
import { Output } from '../src/cli/io.ts';
import { intOption, MAX_TIMEOUT_SECONDS } from '../src/cli/connect.ts';
import { UsageError } from '../src/cli/usage-error.ts';
import { nextToken } from '../src/client/a2a-client.ts';
import { ProgressDisplay } from '../src/cli/progress.ts';

// Pieces with no server behind them: backoff, retry classification, error decoding, SSE parsing,
// artifact assembly and the CLI's exit-code table.

describe('full-jitter backoff', () => {
  const bounds = { baseDelayMs: 100, maxDelayMs: 1000 };
  it('draws from [0, min(max, base·2^attempt)]', () => {
    expect(fullJitterDelay(0, bounds, () => 0.999)).toBe(99);
    expect(fullJitterDelay(3, bounds, () => 0.5)).toBe(400);
    expect(fullJitterDelay(10, bounds, () => 0.999)).toBe(999);
    expect(fullJitterDelay(2, bounds, () => 0)).toBe(0);
  });
});

// Found in review: 'localhost:8080' parses as a URL of scheme 'localhost:', and fetch's refusal
// was retried five times as a network failure; a URL with credentials was retried too, and its
// secret printed twice in the error.
describe('HttpClient refuses URLs it cannot use, at once', () => {
  const calls: string[] = [];
  const http = new HttpClient({
    fetch: (input) => {
      calls.push(String(input));
      return Promise.resolve(new Response('{}'));
    },
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
  });
  const get = (url: string) =>
    http.retrying(() => http.fetch({ method: 'GET', url, accept: 'application/json' }));
  it('a URL without its scheme', async () => {
    await expect(get('localhost:8080/agents/x')).rejects.toThrow(/not an http\(s\) URL.*with its scheme/);
    expect(calls).toEqual([]);
  });
  it('a URL with credentials, without showing them', async () => {
    for (const url of [
      'https://user:SECRET-TOKEN@agents.example.com/x',
      'user:SECRET-TOKEN@agents.example.com:8080/x',
    ]) {
      const refused = await get(url).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TypeError);
      expect(String((refused as Error).message)).not.toContain('SECRET-TOKEN');
    }
    expect(calls).toEqual([]);
  });
});

describe('Retry-After', () => {
  it('reads delta-seconds and HTTP-dates', () => {
    expect(retryAfterSeconds('7')).toBe(7);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon')).toBeUndefined();
    expect(retryAfterSeconds(null)).toBeUndefined();
  });
});

describe('what is transient', () => {
  const reply = (status: number, headers: Record<string, string> = {}, body = '') =>
    errorFromReply(status, '', body, new Headers(headers));
  it.each([
    ['a NetworkError', new NetworkError('reset'), true],
    ['502', reply(502), true],
    ['503', reply(503), true],
    ['504', reply(504), true],
    // The server's own error in a 502 body (InvalidAgentResponse, as the v1.0.0 mapping sends it)
    // is its answer: a retried send would make its agent answer again. A proxy's 502 page is not.
    [
      '502 carrying InvalidAgentResponse',
      reply(
        502,
        {},
        JSON.stringify({
          error: {
            code: 502,
            status: 'INTERNAL',
            message: 'bad agent',
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason: 'INVALID_AGENT_RESPONSE',
                domain: 'a2a-protocol.org',
              },
            ],
          },
        }),
      ),
      false,
    ],
    ['502 from a proxy (an HTML page)', reply(502, {}, '<html>bad gateway</html>'), true],
    [
      '503 carrying Unavailable',
      reply(
        503,
        {},
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          error: {
            code: -32603,
            message: 'x',
            data: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason: 'UNAVAILABLE',
                domain: 'a2a-protocol.org',
              },
            ],
          },
        }),
      ),
      true,
    ],
    ['429 with Retry-After', reply(429, { 'Retry-After': '1' }), true],
    ['429 without Retry-After', reply(429), false],
    ['500', reply(500), false],
    ['404', reply(404), false],
    ['an Unavailable A2AError', new A2AError('Unavailable'), true],
    ['TaskNotFound', new A2AError('TaskNotFound'), false],
  ])('%s → %s', (_name, error, expected) => {
    expect(isTransient(error)).toBe(expected);
  });

  it('withRetry repeats transient failures up to maxAttempts, then rethrows', async () => {
    let calls = 0;
    const options = resolveRetryOptions({ maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 });
    await expect(
      withRetry(async () => {
        calls += 1;
        throw new NetworkError('down');
      }, options),
    ).rejects.toThrow('down');
    expect(calls).toBe(3);
    calls = 0;
    await expect(
      withRetry(async () => (++calls < 2 ? Promise.reject(new NetworkError('x')) : 'ok'), options),
    ).resolves.toBe('ok');
    calls = 0;
    await expect(
      withRetry(async () => (calls++, Promise.reject(new A2AError('InvalidParams'))), options),
    ).rejects.toThrow();
    expect(calls).toBe(1);
  });
});

describe('error decoding (digest §5.4)', () => {
  it('a JSON-RPC error body wins whatever the HTTP status', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'no such task' } });
    const error = errorFromReply(401, 'Unauthorized', body, new Headers());
    expect(error).toBeInstanceOf(A2AResponseError);
    expect(error).toMatchObject({ kind: 'TaskNotFound', httpStatus: 401, message: 'no such task' });
  });

  it('a google.rpc.Status body is read by ErrorInfo reason', () => {
    const body = JSON.stringify({
      error: {
        code: 400,
        status: 'FAILED_PRECONDITION',
        message: 'done already',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'TASK_NOT_CANCELABLE',
            domain: 'a2a-protocol.org',
          },
        ],
      },
    });
    expect(errorFromReply(400, '', body, new Headers())).toMatchObject({
      kind: 'TaskNotCancelable',
      httpStatus: 400,
    });
  });

  it('anything else falls back to the status code and keeps Retry-After', () => {
    const error = errorFromReply(
      503,
      'Service Unavailable',
      '<html>busy</html>',
      new Headers({ 'Retry-After': '2' }),
    );
    expect(error).toMatchObject({
      kind: 'Unavailable',
      httpStatus: 503,
      retryAfterSeconds: 2,
      message: 'HTTP 503 Service Unavailable',
    });
  });
});

describe('a 404 without an A2A error', () => {
  it('is no TaskNotFound: the URL names no endpoint (a 404 with the server’s error keeps its kind)', () => {
    expect(
      errorFromReply(404, 'Not Found', '<html>Cannot POST /agents/x/rpcc</html>', new Headers()),
    ).toMatchObject({
      kind: 'MethodNotFound',
      httpStatus: 404,
      message: expect.stringMatching(/^HTTP 404 Not Found: .*endpoint/),
    });
    const body = JSON.stringify({
      error: {
        code: 404,
        status: 'NOT_FOUND',
        message: 'task t not found',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'TASK_NOT_FOUND',
            domain: 'a2a-protocol.org',
          },
        ],
      },
    });
    expect(errorFromReply(404, 'Not Found', body, new Headers())).toMatchObject({ kind: 'TaskNotFound' });
  });

  // Found in review: RFC 9457 problem details (the spec's leftover error examples) were read as a
  // bare 404: "is the URL an A2A endpoint?", with the server's own title thrown away.
  it('RFC 9457 problem details keep their title and detail; the kind follows the status', () => {
    const problem = (status: number, body: object) =>
      errorFromReply(
        status,
        '',
        JSON.stringify(body),
        new Headers({ 'content-type': 'application/problem+json' }),
      );
    expect(problem(404, { title: 'Task not found', status: 404 })).toMatchObject({
      kind: 'TaskNotFound',
      httpStatus: 404,
      message: 'HTTP 404: Task not found',
    });
    expect(
      problem(401, { type: 'about:blank', title: 'Unauthorized', detail: 'the API key has expired' }),
    ).toMatchObject({ kind: 'Unauthenticated', message: 'HTTP 401: Unauthorized: the API key has expired' });
  });

  // Found in review of that fix: a framework's own 404 for an unknown route also has a title or
  // detail ({"detail":"Not Found"}, as plain JSON), and a wrong URL then read as TaskNotFound.
  it('a 404 whose JSON body is not problem details is still a wrong URL, with what it said', () => {
    const notFound = errorFromReply(
      404,
      '',
      '{"detail":"Not Found"}',
      new Headers({ 'content-type': 'application/json' }),
    );
    expect(notFound).toMatchObject({ kind: 'MethodNotFound', httpStatus: 404 });
    expect(notFound.message).toContain('(Not Found)');
  });
});

describe('readSse (eventsource-parser over fetch streams)', () => {
  const respond = (chunks: string[], failAfter = false) => {
    const queue = [...chunks];
    return new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = queue.shift();
          if (next !== undefined) controller.enqueue(new TextEncoder().encode(next));
          else if (failAfter) controller.error(new TypeError('terminated'));
          else controller.close();
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );
  };

  it('handles events split across chunks, comments, ids and CRLF', async () => {
    const events = [];
    for await (const e of readSse(
      respond(
        [': keep-alive\n\nid: 1\nda', 'ta: {"a":1}\n\n', 'id: 2\r\ndata: {"b":', '2}\r\n\r\ndata: partial'],
        false,
      ),
      { abort: () => undefined },
    )) {
      events.push(e);
    }
    expect(events.map((e) => [e.id, e.data])).toEqual([
      ['1', '{"a":1}'],
      ['2', '{"b":2}'],
    ]);
  });

  it('a body cut mid-stream is a NetworkError after the events that arrived', async () => {
    const seen: string[] = [];
    const run = async () => {
      for await (const e of readSse(respond(['id: 1\ndata: x\n\n'], true), { abort: () => undefined }))
        seen.push(e.data);
    };
    await expect(run()).rejects.toBeInstanceOf(NetworkError);
    expect(seen).toEqual(['x']);
  });

  it('a silent stream fails after idleTimeoutMs', async () => {
    const controller = new AbortController();
    const silent = new Response(new ReadableStream({}), { headers: { 'content-type': 'text/event-stream' } });
    const response = await fetchLikeWithSignal(silent, controller.signal);
    const run = async () => {
      for await (const _ of readSse(response, {
        idleTimeoutMs: 50,
        abort: (reason) => controller.abort(reason),
      })) {
        // nothing arrives
      }
    };
    await expect(run()).rejects.toThrow(/idle/);
  });

  // Found in review: the idle clock kept running while the consumer handled an event, so a slow
  // consumer got "stream idle" from a server that had the next event ready all along.
  it('the idle clock stops while the consumer handles an event', async () => {
    const controller = new AbortController();
    const response = await fetchLikeWithSignal(
      respond(['id: 1\ndata: a\n\n', 'id: 2\ndata: b\n\n']),
      controller.signal,
    );
    const seen: string[] = [];
    for await (const e of readSse(response, {
      idleTimeoutMs: 20,
      abort: (reason) => controller.abort(reason),
    })) {
      seen.push(e.data);
      // A consumer slower than the idle timeout (its timer fires after the idle one would).
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seen).toEqual(['a', 'b']);
  });
});

/** Ties a body to an abort signal, as fetch does. */
async function fetchLikeWithSignal(response: Response, signal: AbortSignal): Promise<Response> {
  const reader = response.body?.getReader();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      signal.addEventListener('abort', () => controller.error(signal.reason), { once: true });
    },
    async pull(controller) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) controller.close();
      else controller.enqueue(chunk.value);
    },
  });
  return new Response(body, { headers: response.headers });
}

describe('ArtifactAssembler (digest §2.3 append/lastChunk)', () => {
  const update = (artifactId: string, text: string, append: boolean, lastChunk: boolean): StreamResponse => ({
    artifactUpdate: {
      taskId: 't',
      contextId: 'c',
      artifact: { artifactId, name: `${artifactId}.txt`, parts: [{ text }] },
      append,
      lastChunk,
    },
  });

  it('appends chunks, replaces on append=false, completes on lastChunk, keeps first-seen order', () => {
    const a = new ArtifactAssembler();
    a.apply(update('x', 'a', false, false))
      .apply(update('y', '1', false, true))
      .apply(update('x', 'b', true, false));
    expect(a.isComplete('x')).toBe(false);
    a.apply(update('x', 'c', true, true));
    expect(a.get('x')?.parts.map((p) => p.text)).toEqual(['a', 'b', 'c']);
    expect(a.isComplete('x')).toBe(true);
    expect(a.chunkCount('x')).toBe(3);
    expect(a.artifacts.map((x) => x.artifactId)).toEqual(['x', 'y']);
    a.apply(update('x', 'fresh', false, false));
    expect(a.get('x')?.parts.map((p) => p.text)).toEqual(['fresh']);
  });

  it('a task snapshot resets to its artifacts, complete when the task is terminal', () => {
    const a = new ArtifactAssembler();
    a.apply(update('old', 'z', false, false));
    a.apply({
      task: {
        id: 't',
        contextId: 'c',
        status: { state: TaskState.COMPLETED },
        artifacts: [{ artifactId: 'x', parts: [{ text: 'all' }] }],
      },
    });
    expect(a.artifacts.map((x) => x.artifactId)).toEqual(['x']);
    expect(a.isComplete('x')).toBe(true);
  });
});

describe('CLI exit codes (README.md)', () => {
  it('map task states', () => {
    expect(exitCodeForState(TaskState.COMPLETED)).toBe(0);
    expect(exitCodeForState(TaskState.WORKING)).toBe(0);
    for (const s of [TaskState.FAILED, TaskState.REJECTED, TaskState.CANCELED])
      expect(exitCodeForState(s)).toBe(3);
    for (const s of [TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED]) expect(exitCodeForState(s)).toBe(4);
  });

  it('map errors', () => {
    expect(exitCodeForError(new A2AError('TaskNotFound'))).toBe(ExitCode.A2A_ERROR);
    expect(exitCodeForError(new NetworkError('x'))).toBe(ExitCode.UNAVAILABLE);
    expect(exitCodeForError(errorFromReply(503, '', '', new Headers()))).toBe(ExitCode.UNAVAILABLE);
  });
});

// Found in review: a server that ignores pageToken and repeats its nextPageToken was followed
// forever (list --all, push list); a --timeout past Node's longest timer fired at once.
describe('guards against endless pages and impossible timeouts', () => {
  it('a nextPageToken given before stops the walk with InvalidAgentResponse', () => {
    const followed = new Set<string>();
    expect(nextToken('p2', followed)).toBe('p2');
    expect(nextToken('', followed)).toBeUndefined();
    expect(() => nextToken('p2', followed)).toThrow(/given before/);
  });

  it('--timeout is refused past about 24.8 days', () => {
    expect(intOption(String(MAX_TIMEOUT_SECONDS), 'timeout', { min: 1, max: MAX_TIMEOUT_SECONDS })).toBe(
      2_147_483,
    );
    expect(() => intOption('2147484', 'timeout', { min: 1, max: MAX_TIMEOUT_SECONDS })).toThrow(UsageError);
  });
});

describe('CLI progress display', () => {
  const events: StreamResponse[] = [
    { task: { id: 't1', contextId: 'c1', status: { state: TaskState.SUBMITTED } } },
    {
      statusUpdate: {
        taskId: 't1',
        contextId: 'c1',
        status: {
          state: TaskState.WORKING,
          message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'Step 1' }] },
        },
      },
    },
    {
      artifactUpdate: {
        taskId: 't1',
        contextId: 'c1',
        artifact: { artifactId: 'a', name: 'out.json', parts: [{ text: 'x' }] },
      },
    },
    {
      artifactUpdate: {
        taskId: 't1',
        contextId: 'c1',
        artifact: { artifactId: 'a', name: 'out.json', parts: [{ text: 'y' }] },
        append: true,
        lastChunk: true,
      },
    },
  ];
  const show = (isTTY: boolean) => {
    let written = '';
    const stream = { isTTY, write: (s: string) => (written += s) };
    const display = new ProgressDisplay(new Output({ stdout: stream, stderr: stream, env: {} }, false));
    for (const response of events) display.event({ response });
    display.stop();
    return written;
  };

  it('without a terminal: plain status lines and a line per artifact chunk, no escape codes', () => {
    expect(show(false)).toBe(
      [
        'task t1 (context c1)',
        '[SUBMITTED]',
        '[WORKING] Step 1',
        '  artifact out.json: chunk 1',
        '  artifact out.json: chunk 2 (complete)',
        '',
      ].join('\n'),
    );
  });

  it('on a terminal: a spinner line redrawn in place under the status lines', () => {
    const written = show(true);
    expect(written).toContain('\r\x1b[2K');
    expect(written).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] WORKING \d+\.\ds · out\.json 1 chunk/);
    expect(written).not.toContain('out.json: chunk 1\n');
    expect(written).toContain('out.json: chunk 2 (complete)');
  });
});
