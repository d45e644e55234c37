import { A2AError } from '@a2a-js/sdk/errors';
import {
  AgentFailure,
  RunEndedError,
  type Agent,
  type AgentContext,
  type CanceledTaskContext,
} from '@switchyard/agents';
import { createGuardedAgent, systemLookup, type UrlPolicy } from '@switchyard/engine';
import type { SecretBox } from '@switchyard/store';
import { createUpstreamClient, streams, UpstreamCardCache } from './upstream-client.ts';
import { createUpstreamFetch, type ExchangeLog } from './upstream-fetch.ts';
import { HOP_COUNT_HEADER, nextHop, type Hops } from './upstream-hops.ts';
import { readLink } from './upstream-link.ts';
import { forwardCancel, UpstreamRun, type RunTimings } from './upstream-run.ts';
import {
  credentialHeaders,
  credentialsFingerprint,
  openUpstreamSettings,
  UPSTREAM_EXECUTOR,
  type UpstreamTarget,
} from './upstream-settings.ts';

export interface UpstreamAgentOptions {
  /** Opens the sealed credentials of a registration. */
  secrets: SecretBox;
  /** The same SSRF rules as webhooks (ARCHITECTURE.md §7). */
  policy: UrlPolicy;
  /** Limit per unary upstream request. Default 30 s. */
  requestTimeoutMs?: number;
  /** How long an upstream card is reused before it is read again. Default 60 s. */
  cardTtlMs?: number;
  /**
   * Most bytes of an upstream's unary answer that are read (a non-streaming upstream's GetTask
   * carries all its task's artifacts). Default 32 MiB; cards are bounded at 1 MiB, error bodies
   * at 64 KiB, and each streamed event at 4 MiB (the SDK's limit).
   */
  maxReplyBytes?: number;
  timings?: Partial<RunTimings>;
}

export const UNAVAILABLE_MESSAGE = 'The upstream agent is unavailable.';
export const REFUSED_MESSAGE = 'The upstream agent refused the request.';
export const INVALID_RESPONSE_MESSAGE = 'The upstream agent answered with an invalid A2A response.';

/**
 * The `a2a-upstream` executor: the agent is an existing A2A server, and the worker is its A2A
 * client (the official SDK). Switchyard adds what the upstream lacks: a durable task, idempotent
 * retries, leases and recovery, resumable streams, reliable push, isolation and traces.
 * Failures throw AgentFailure, so they retry with backoff under the task's attempt limit and end
 * as FAILED with a safe message.
 */
export function createUpstreamAgent(options: UpstreamAgentOptions): Agent {
  const dispatcher = createGuardedAgent({
    policy: options.policy,
    connectTimeoutMs: 10_000,
    // An operator's name (admin API): the system resolver, hosts file and search domains included.
    resolve: systemLookup,
  });
  const cards = new UpstreamCardCache(options.cardTtlMs ?? 60_000);
  const timings: RunTimings = { pollMinMs: 200, pollMaxMs: 5_000, maxResumes: 20, ...options.timings };
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  // Read with the registration's own credentials, and cached per them (UpstreamCardCache).
  const cardOf = (target: UpstreamTarget, fetchImpl: typeof fetch) =>
    cards.get(target.cardUrl, fetchImpl, credentialsFingerprint(target.credentials));

  // Every request says how many a2a-upstream hops it has made (upstream-hops.ts); a cancel, sent
  // without the run's message at hand, counts as one.
  const fetchFor = (target: UpstreamTarget, log: ExchangeLog, signal?: AbortSignal, hops = 1) =>
    createUpstreamFetch({
      dispatcher,
      headers: { ...credentialHeaders(target.credentials), [HOP_COUNT_HEADER]: String(hops) },
      allowHttp: options.policy.allowHttp,
      requestTimeoutMs,
      log,
      ...(signal ? { signal } : {}),
      ...(options.maxReplyBytes ? { maxReplyBytes: options.maxReplyBytes } : {}),
    });

  return {
    executor: UPSTREAM_EXECUTOR,
    // The gateway publishes the registration's card (ours, with the upstream's skills and modes).
    card: {
      name: 'A2A upstream agent',
      description: 'An existing A2A agent served through Switchyard',
      version: '1.0.0',
      skills: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
    },
    async execute(ctx: AgentContext): Promise<void> {
      let target: UpstreamTarget;
      try {
        target = openUpstreamSettings(ctx.settings, options.secrets);
      } catch (err) {
        throw new AgentFailure('The upstream agent registration is not usable.', { cause: err });
      }
      // The loop guard, before anything is sent: a message that has come through too many
      // a2a-upstream agents, or was already forwarded to this upstream, ends here for good (a
      // retry would loop the same way), and so does every run that was waiting on it.
      const hop = nextHop(ctx.message, target.cardUrl);
      if (!hop.ok) {
        ctx.log.warn({ cardUrl: target.cardUrl }, 'a2a-upstream loop guard refused the request');
        await ctx.fail(hop.message);
        return;
      }
      const hops: Hops = hop.next;
      const exchange: ExchangeLog = { lastStatus: undefined, redirected: false };
      let run: UpstreamRun | undefined;
      try {
        const fetchImpl = fetchFor(target, exchange, ctx.signal, hops.count);
        const card = await cardOf(target, fetchImpl);
        const client = await createUpstreamClient(card, target.binding, fetchImpl);
        run = new UpstreamRun(ctx, client, streams(card), timings, hops);
        await run.run();
      } catch (err) {
        // Canceled here, or our task ended under the run (its artifacts passed their limit): the
        // upstream task must not run on for nobody.
        const ourTaskEnded = err instanceof RunEndedError && err.reason === 'finished';
        if (isCancel(ctx.signal) || ourTaskEnded) {
          // Canceled before the run started (while the card was read), a follow-up turn still
          // has an upstream task waiting: its id is in the saved link.
          const upstreamTaskId =
            run?.upstreamTaskId ?? (await readLink(ctx.memory, ctx.task.id).catch(() => undefined))?.taskId;
          if (upstreamTaskId) await cancelUpstream(ctx, target, upstreamTaskId);
        }
        throw classify(err, exchange, ctx.signal);
      }
    },
    // Canceled while waiting for input or auth: no run is active, so the upstream task (waiting
    // too) is canceled from here.
    onCanceled: cancelLinkedUpstream,
    // Failed by the platform (the last attempt's error or timeout, a worker dead on it): the
    // upstream task must not run on for nobody either.
    onFailed: cancelLinkedUpstream,
  };

  async function cancelLinkedUpstream(ctx: CanceledTaskContext): Promise<void> {
    const link = await readLink(ctx.memory, ctx.taskId);
    if (!link?.taskId) return;
    await cancelUpstream(ctx, openUpstreamSettings(ctx.settings, options.secrets), link.taskId);
  }

  async function cancelUpstream(
    ctx: Pick<AgentContext, 'log'>,
    target: UpstreamTarget,
    upstreamTaskId: string,
  ): Promise<void> {
    // The run's own fetch is aborted by now: the cancel gets a fresh one with its own time limit.
    const exchange: ExchangeLog = { lastStatus: undefined, redirected: false };
    try {
      const fetchImpl = fetchFor(target, exchange);
      const client = await createUpstreamClient(await cardOf(target, fetchImpl), target.binding, fetchImpl);
      await forwardCancel(client, upstreamTaskId);
      ctx.log.info({ upstreamTaskId }, 'cancel forwarded to the upstream agent');
    } catch (err) {
      ctx.log.warn({ err, upstreamTaskId }, 'could not forward the cancel to the upstream agent');
    }
  }
}

function isCancel(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof RunEndedError && signal.reason.reason === 'canceled';
}

/**
 * What went wrong, in terms a client may see: unreachable or 5xx is "unavailable"; an A2A error
 * or another 4xx is "refused"; a 2xx answer the SDK could not read as A2A is InvalidAgentResponse.
 * The detail (never shown to clients) goes to the logs through the error message.
 */
export function classify(err: unknown, exchange: ExchangeLog, signal: AbortSignal): unknown {
  if (signal.aborted || err instanceof RunEndedError || err instanceof AgentFailure) return err;
  const detail = err instanceof Error ? err.message.slice(0, 300) : String(err);
  const status = exchange.lastStatus;
  if (exchange.redirected || status === undefined || status >= 500 || status === 429 || status === 408)
    return new AgentFailure(UNAVAILABLE_MESSAGE, { cause: err, detail });
  if (err instanceof A2AError || status >= 400)
    return new AgentFailure(REFUSED_MESSAGE, { cause: err, detail });
  return new AgentFailure(INVALID_RESPONSE_MESSAGE, { cause: err, detail, code: 'InvalidAgentResponse' });
}
