import type { Request } from 'express';
import type { AgentRegistration } from '@switchyard/engine';
import type { JsonRpcId } from '@switchyard/protocol';
import type { Caller } from '@switchyard/store';
import type { Logger } from '@switchyard/telemetry';
import type { BodyBudget } from './body-budget.ts';

/** Which wire format errors for this request are written in (digest §5.4). */
export type Binding = 'jsonrpc' | 'rest' | 'admin' | 'plain';

/** Who the request speaks for and which credential it used (rate limits count per credential). */
export interface Identity {
  caller: Caller;
  /** `key:<id>` for API keys, `jwt:<tenant>:<sub>`; never the secret itself. */
  credentialId: string;
  /** When the credential stops working (an API key's expiry, a JWT's `exp`), in epoch ms. */
  expiresAt?: number;
}

/**
 * Per-request state, typed (express's `res.locals` is `any`). Its logger is made on first use: a
 * stream that logs nothing while it is open (hours, perhaps) then holds only the fields, not a
 * pino child and its serialized bindings.
 */
export class RequestState {
  binding: Binding = 'plain';
  /** The JSON-RPC request id once the envelope was read; error replies echo it. */
  jsonRpcId: JsonRpcId = null;
  /** The negotiated A2A version of a JSON-RPC request: `0.3` writes errors in 0.3 shape. */
  protocolVersion?: '1.0' | '0.3';
  identity?: Identity;
  /** StreamRegistry.revocationMark() taken before the credential was checked (streams only). */
  revocationMark?: number;
  agent?: AgentRegistration;
  /** A2A method name, for logs. */
  method?: string;
  /** The A2A error the request ended with (metrics' `outcome`); unset on success. */
  outcome?: string;
  taskId?: string;
  /** The process's budget of request bodies in flight (BODY_BYTES_IN_FLIGHT_MAX). */
  bodyBudget?: BodyBudget;
  #base: Logger;
  #fields: Record<string, unknown>;
  #log: Logger | undefined;

  constructor(base: Logger, fields: Record<string, unknown>) {
    this.#base = base;
    this.#fields = fields;
  }

  /** This request's logger: the process logger with the request's fields. */
  get log(): Logger {
    return (this.#log ??= this.#base.child(this.#fields));
  }

  /**
   * Adds fields to every later line of this request's log. A child of a logger already made would
   * write a key it carries twice (pino does not merge bindings): it is made again from the base
   * with every field once, a field given again taking its new value.
   */
  addLogFields(fields: Record<string, unknown>): void {
    Object.assign(this.#fields, fields);
    if (this.#log) this.#log = this.#base.child(this.#fields);
  }

  /** `fields` less those this request's logger carries already, so that a line has each key once. */
  notLogged(fields: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(Object.entries(fields).filter(([key]) => !Object.hasOwn(this.#fields, key)));
  }
}

const states = new WeakMap<Request, RequestState>();

export function initState(req: Request, log: Logger, fields: Record<string, unknown> = {}): RequestState {
  const state = new RequestState(log, fields);
  states.set(req, state);
  return state;
}

export function stateOf(req: Request): RequestState {
  const state = states.get(req);
  if (!state) throw new Error('request state missing: the request-log middleware must run first');
  return state;
}

/** The authenticated caller and resolved agent; only valid behind the A2A guard. */
export function a2aContextOf(req: Request): { identity: Identity; agent: AgentRegistration } {
  const { identity, agent } = stateOf(req);
  if (!identity || !agent) throw new Error('A2A context missing: the A2A guard must run first');
  return { identity, agent };
}
