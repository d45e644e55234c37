import type { StreamItem } from '@switchyard/engine';
import {
  toV03StreamResult,
  type A2AError,
  type ErrorMapping,
  type JsonRpcId,
  type StreamResponse,
  type TaskState,
} from '@switchyard/protocol';
import { jsonRpcErrorBody, restErrorBody, v03JsonRpcErrorBody } from '../http/error-replies.ts';
import type { SseFormat } from './sse-stream.ts';

/**
 * The JSON text of an event, once per event object and wire version: every stream of a task gets
 * the same object from the hint (the feed's inline fast path), so a task followed by a thousand
 * streams is serialized once, not a thousand times. Events are never mutated after they are made.
 */
const v10Json = new WeakMap<StreamResponse, string>();
/**
 * 0.3 texts carry `final`, true on the item a stream ends after (StreamItem.closes): one cache for
 * each, as one event can end one stream and not another (one opened before the client answered it).
 */
const v03Json = { final: new WeakMap<StreamResponse, string>(), open: new WeakMap<StreamResponse, string>() };

type EndsStream = (state: TaskState) => boolean;
const ENDS: EndsStream = () => true;
const GOES_ON: EndsStream = () => false;

function responseJson(response: StreamResponse, v03: { final: boolean } | undefined) {
  const cache = v03 ? (v03.final ? v03Json.final : v03Json.open) : v10Json;
  let text = cache.get(response);
  if (text === undefined) {
    text = JSON.stringify(v03 ? toV03StreamResult(response, v03.final ? ENDS : GOES_ON) : response);
    cache.set(response, text);
  }
  return text;
}

/**
 * JSON-RPC: every event is a whole JSON-RPC response carrying the request's id (digest §4.1). A
 * class, not an object of closures: one is held by every open stream.
 */
class JsonRpcSseFormat implements SseFormat {
  /**
   * Unnamed, like every other event: the error is a JSON-RPC error response in `data:` with the
   * request's id. a2a-js's JsonRpcTransport (1.3.0) reads every event's data as a JSON-RPC
   * response whatever its name, and raises on `error`; the digest (§4.1) defines no event names.
   */
  readonly errorEvent = undefined;
  readonly #id: JsonRpcId;
  readonly #head: string;
  /** A 0.3 client's stream: bare results with `kind`, and `final`. */
  readonly #v03: boolean;

  constructor(id: JsonRpcId, v03: boolean) {
    this.#id = id;
    this.#head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
    this.#v03 = v03;
  }

  itemJson({ response, closes }: StreamItem): string {
    return `${this.#head}${responseJson(response, this.#v03 ? { final: closes === true } : undefined)}}`;
  }

  error(error: A2AError): unknown {
    return this.#v03 ? v03JsonRpcErrorBody(error, this.#id) : jsonRpcErrorBody(error, this.#id);
  }
}

export function jsonRpcSseFormat(id: JsonRpcId): SseFormat {
  return new JsonRpcSseFormat(id, false);
}

/**
 * JSON-RPC for a 0.3 client: bare results with `kind` and `final` (digest §13.1, §13.3), `final`
 * on the status update the stream ends after, which 0.3 clients stop reading at.
 */
export function jsonRpcV03SseFormat(id: JsonRpcId): SseFormat {
  return new JsonRpcSseFormat(id, true);
}

/**
 * HTTP+JSON: the bare StreamResponse (digest §4.2); an error is an event named `error` whose data
 * is `{error: google.rpc.Status}` (the spec leaves it open, issue #1262).
 */
class RestSseFormat implements SseFormat {
  /**
   * The name is what makes it an error to clients: a2a-js's RestTransport (1.3.0) raises only on
   * an event named `error`, building the A2A error from its google.rpc.Status (ErrorInfo reason),
   * and parses any other event as a StreamResponse, so an unnamed error passed as an empty event.
   * a2a-js's own server writes the same frame (formatSSEErrorEvent).
   */
  readonly errorEvent = 'error';
  readonly #mapping: ErrorMapping;

  constructor(mapping: ErrorMapping) {
    this.#mapping = mapping;
  }

  itemJson({ response }: StreamItem): string {
    return responseJson(response, undefined);
  }

  error(error: A2AError): unknown {
    return restErrorBody(error, this.#mapping).body;
  }
}

/** One per mapping (a gateway uses one): every REST stream shares it. */
const restFormats = new Map<ErrorMapping, SseFormat>();

export function restSseFormat(mapping: ErrorMapping): SseFormat {
  let format = restFormats.get(mapping);
  if (!format) {
    format = new RestSseFormat(mapping);
    restFormats.set(mapping, format);
  }
  return format;
}
