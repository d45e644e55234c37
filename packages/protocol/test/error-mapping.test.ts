import { describe, expect, it } from 'vitest';
import {
  A2AError,
  BAD_REQUEST_TYPE,
  ERROR_INFO_TYPE,
  ERROR_KINDS,
  ERROR_REGISTRY,
  contentTypeNotSupported,
  extensionSupportRequired,
  fromHttpErrorBody,
  fromJsonRpcErrorObject,
  fromUnknown,
  internalError,
  invalidParams,
  isA2AError,
  isA2AErrorOfKind,
  methodNotFound,
  payloadTooLarge,
  resourceExhausted,
  taskNotCancelable,
  taskNotFound,
  toHttpError,
  toJsonRpcError,
  unauthenticated,
  unavailable,
  unsupportedOperation,
  versionNotSupported,
} from '../src/index.ts';

describe('A2AError', () => {
  it('takes name, default message and reason from the registry', () => {
    const e = new A2AError('TaskNotCancelable');
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('TaskNotCancelableError');
    expect(e.message).toBe('Task cannot be canceled');
    expect(e.reason).toBe('TASK_NOT_CANCELABLE');
    expect(e.metadata).toEqual({});
    expect(e.fieldViolations).toBeUndefined();
    expect('cause' in e).toBe(false);
  });

  it('STYLE rule 4: keeps cause', () => {
    const root = new Error('boom');
    expect(new A2AError('Internal', { cause: root }).cause).toBe(root);
    expect(unavailable(5, root).cause).toBe(root);
  });

  it('§5.1 ErrorInfo metadata values are strings', () => {
    const e = new A2AError('TaskNotFound', { metadata: { n: 5 as unknown as string } });
    expect(e.metadata).toEqual({ n: '5' });
  });

  it('type guards', () => {
    expect(isA2AError(taskNotFound('t'))).toBe(true);
    expect(isA2AError(new Error('x'))).toBe(false);
    expect(isA2AErrorOfKind(taskNotFound('t'), 'TaskNotFound')).toBe(true);
    expect(isA2AErrorOfKind(taskNotFound('t'), 'Internal')).toBe(false);
  });
});

describe('factories', () => {
  it('carry the metadata clients need', () => {
    expect(taskNotFound('t1').metadata).toEqual({ taskId: 't1' });
    expect(taskNotCancelable('t1', 'TASK_STATE_COMPLETED').metadata).toEqual({
      taskId: 't1',
      state: 'TASK_STATE_COMPLETED',
    });
    expect(contentTypeNotSupported('image/gif').metadata).toEqual({ mediaType: 'image/gif' });
    const listed = contentTypeNotSupported('image/gif', ['text/plain', 'application/json']);
    expect(listed.metadata).toEqual({ mediaType: 'image/gif', accepted: 'text/plain,application/json' });
    expect(listed.message).toBe(
      'Incompatible content types: this agent does not take image/gif; it takes text/plain, application/json',
    );
    expect(extensionSupportRequired(['urn:a', 'urn:b']).metadata).toEqual({ extensions: 'urn:a,urn:b' });
    expect(methodNotFound('Nope').metadata).toEqual({ method: 'Nope' });
    expect(payloadTooLarge(1024).metadata).toEqual({ limitBytes: '1024' });
    expect(unsupportedOperation('Streaming is not supported').message).toBe('Streaming is not supported');
  });

  it('§12 #8 VersionNotSupported lists supported versions in ErrorInfo metadata', () => {
    const e = versionNotSupported('0.3', ['1.0']);
    expect(e.kind).toBe('VersionNotSupported');
    expect(e.metadata).toEqual({ requestedVersion: '0.3', supportedVersions: '1.0' });
  });

  it('bounds client-provided values echoed into metadata', () => {
    expect(taskNotFound('x'.repeat(10_000)).metadata['taskId']).toHaveLength(256);
    expect(methodNotFound('m'.repeat(1000)).metadata['method']).toHaveLength(256);
  });

  it('internalError always uses the safe message', () => {
    const e = internalError(new Error('password=hunter2'));
    expect(e.message).toBe('Internal error');
  });
});

describe('§5.4 JSON-RPC representation', () => {
  it.each(ERROR_KINDS)('%s → code and data[ErrorInfo]', (kind) => {
    const body = toJsonRpcError(new A2AError(kind));
    expect(body.code).toBe(ERROR_REGISTRY[kind].jsonRpcCode ?? -32000);
    expect(body.message).toBe(ERROR_REGISTRY[kind].defaultMessage);
    expect(body.data).toEqual([
      { '@type': ERROR_INFO_TYPE, reason: ERROR_REGISTRY[kind].reason, domain: 'a2a-protocol.org' },
    ]);
  });

  it('TaskNotFound matches the digest example', () => {
    expect(toJsonRpcError(taskNotFound('t1'))).toEqual({
      code: -32001,
      message: 'Task not found',
      data: [
        {
          '@type': ERROR_INFO_TYPE,
          reason: 'TASK_NOT_FOUND',
          domain: 'a2a-protocol.org',
          metadata: { taskId: 't1' },
        },
      ],
    });
  });

  it('InvalidParams adds google.rpc.BadRequest after ErrorInfo', () => {
    const body = toJsonRpcError(
      invalidParams('bad', [{ field: 'message.parts', description: 'must contain at least one part' }]),
    );
    expect(body.code).toBe(-32602);
    expect(body.data[1]).toEqual({
      '@type': BAD_REQUEST_TYPE,
      fieldViolations: [{ field: 'message.parts', description: 'must contain at least one part' }],
    });
  });
});

describe('§5.4 HTTP+JSON representation (AIP-193 google.rpc.Status)', () => {
  for (const mapping of ['v1.0.1', 'v1.0.0'] as const) {
    it.each(ERROR_KINDS)(`${mapping}: %s → status, code and gRPC name`, (kind) => {
      const def = ERROR_REGISTRY[kind];
      const reply = toHttpError(new A2AError(kind), mapping);
      expect(reply.status).toBe(def.http[mapping]);
      expect(reply.body.error.code).toBe(def.http[mapping]);
      expect(reply.body.error.status).toBe(def.grpc[mapping]);
      expect(reply.body.error.message).toBe(def.defaultMessage);
      expect(reply.body.error.details[0]).toMatchObject({
        '@type': ERROR_INFO_TYPE,
        reason: def.reason,
        domain: 'a2a-protocol.org',
      });
    });
  }

  it('defaults to the v1.0.1 mapping (§12 #2)', () => {
    expect(toHttpError(taskNotCancelable('t')).status).toBe(400);
    expect(toHttpError(taskNotCancelable('t'), 'v1.0.0').status).toBe(409);
  });

  it('matches the digest example for TaskNotFound', () => {
    expect(toHttpError(taskNotFound('t1'))).toEqual({
      status: 404,
      headers: {},
      body: {
        error: {
          code: 404,
          status: 'NOT_FOUND',
          message: 'Task not found',
          details: [
            {
              '@type': ERROR_INFO_TYPE,
              reason: 'TASK_NOT_FOUND',
              domain: 'a2a-protocol.org',
              metadata: { taskId: 't1' },
            },
          ],
        },
      },
    });
  });

  it('§5.3 Retry-After for 429 and 503', () => {
    expect(toHttpError(resourceExhausted(30)).headers).toEqual({ 'Retry-After': '30' });
    expect(toHttpError(unavailable(1.2)).headers).toEqual({ 'Retry-After': '2' });
    expect(toHttpError(unauthenticated()).status).toBe(401);
  });
});

describe('fromUnknown: nothing internal leaks', () => {
  it.each([
    ['an Error', new Error('SELECT * FROM secrets failed at /srv/app.ts:12')],
    ['a string', 'connection refused 10.0.0.5:5432'],
    ['an object', { stack: 'x' }],
    ['undefined', undefined],
  ])('%s becomes InternalError with the generic message and keeps cause', (_, thrown) => {
    const e = fromUnknown(thrown);
    expect(e.kind).toBe('Internal');
    expect(e.message).toBe('Internal error');
    if (thrown !== undefined) expect(e.cause).toBe(thrown);
    const wire = JSON.stringify([toJsonRpcError(thrown), toHttpError(thrown)]);
    expect(wire).not.toMatch(/secrets|10\.0\.0\.5|app\.ts/);
  });

  it('returns A2AErrors unchanged', () => {
    const e = taskNotFound('t');
    expect(fromUnknown(e)).toBe(e);
  });
});

describe('client side: rebuilding errors from the wire', () => {
  it.each(ERROR_KINDS)('%s round-trips through JSON-RPC and HTTP', (kind) => {
    const original = new A2AError(kind, {
      metadata: { k: 'v' },
      fieldViolations: [{ field: 'id', description: 'is required' }],
    });
    const viaRpc = fromJsonRpcErrorObject(toJsonRpcError(original));
    expect(viaRpc.kind).toBe(kind);
    expect(viaRpc.metadata).toEqual({ k: 'v' });
    expect(viaRpc.fieldViolations).toEqual([{ field: 'id', description: 'is required' }]);
    for (const mapping of ['v1.0.1', 'v1.0.0'] as const) {
      const http = toHttpError(original, mapping);
      expect(fromHttpErrorBody(http.status, http.body).kind).toBe(kind);
    }
  });

  it('falls back to the code or status when ErrorInfo is missing', () => {
    expect(fromJsonRpcErrorObject({ code: -32001, message: 'gone' }).kind).toBe('TaskNotFound');
    expect(fromJsonRpcErrorObject({ code: -32001, message: 'gone' }).message).toBe('gone');
    expect(fromJsonRpcErrorObject({ code: 1234 }).kind).toBe('Internal');
    expect(fromHttpErrorBody(409, { error: { message: 'x' } }).kind).toBe('TaskNotCancelable');
    expect(fromHttpErrorBody(418, 'not json').kind).toBe('Internal');
  });
});
