import { AgentFailure, RunEndedError, type Agent } from '@switchyard/agents';
import {
  extractTraceContext,
  injectTraceContext,
  lazyChild,
  SpanKind,
  withSpan,
} from '@switchyard/telemetry';
import { TaskState } from '@switchyard/protocol';
import type { Dispatch, RunTaskJob, TaskCanceledJob } from '@switchyard/queue';
import { isStoreGone, type ClaimResult } from '@switchyard/store';
import { LEASE_EXHAUSTED_MESSAGE } from '../reaper.ts';
import { makeVisible } from '../service/make-visible.ts';
import { keepLease, leaseOwnerOf } from './lease-keeper.ts';
import { buildRunContext } from './build-run-context.ts';
import type { RunContext } from './run-context.ts';
import { recordDispatchLatency } from './dispatch-latency.ts';
import type { RunnerDeps } from './runner-deps.ts';
import { watchForCancel } from './cancel-watch.ts';
import { afterRefusedClaim } from './after-refused-claim.ts';
import { noticeCanceled, releaseHeardCancel } from './cancel-notices.ts';
import { failRunAndTell } from './agent-end-hooks.ts';
import { failRun } from './settle-writes.ts';
import { retryOrFail } from './retry-or-fail.ts';
import { settleRunError } from './settle-run-error.ts';

export { FAILED_MESSAGE } from './retry-or-fail.ts';
/** Safe status texts: the real error goes to logs and traces only (ARCHITECTURE.md §3 rule 7). */
const NO_AGENT_MESSAGE = 'This agent is not available on this platform.';
export { FAILURE_CODE_METADATA_KEY } from './settle-writes.ts';

/** Outage hand-backs with the attempt refunded in a row before one counts (afterOutage). */
const MAX_OUTAGE_REFUNDS = 5;

/** How recent a "tenant disabled" read must be to turn a run away (waitsForTenant). */
const REFUSAL_READ_MAX_AGE_MS = 1_000;

type StopReason = 'canceled' | 'lease-lost' | 'shutdown';

interface ActiveRun {
  stop(reason: StopReason): void;
  done: Promise<void>;
}

/**
 * Runs one dispatch: claim by CAS with a lease, run the agent under lease renewal, cancel hints
 * and the quick-reply window, and settle the outcome (complete, retry with backoff, fail, or hand
 * back on shutdown). Tracks active runs so a graceful shutdown can drain them.
 */
export class TaskRunner {
  private readonly deps: RunnerDeps;
  private readonly active = new Map<string, ActiveRun>();
  /**
   * While draining, re-dispatches are held back until the queue consumer has closed: a paused
   * BullMQ worker can still take a job already on its way, and re-running a handed-back task on
   * the process that is shutting down would defeat the hand-back.
   */
  private draining = false;
  private readonly heldBack: Dispatch[] = [];
  /**
   * Runs still waiting for their claim: not yet active, but a drain must wait for them too (a
   * claim held up behind a batch or a slow Postgres would otherwise start its agent after the
   * grace period was judged over).
   */
  private claiming = 0;
  /** Set by stopAll('shutdown'): a claim that comes back after it hands its task back at once. */
  private handingBack = false;

  constructor(deps: RunnerDeps) {
    this.deps = deps;
  }

  get activeCount(): number {
    return this.active.size + this.claiming;
  }

  run(job: RunTaskJob): Promise<void> {
    // The run joins the trace of the request that created the work (trace context rides in the job).
    return withSpan(
      'run-task',
      {
        'switchyard.task_id': job.taskId,
        'switchyard.tenant_id': job.tenantId,
        'switchyard.worker_id': this.deps.workerId,
      },
      () => this.runTraced(job),
      { kind: SpanKind.CONSUMER, parent: extractTraceContext(job) },
    );
  }

  /**
   * A disabled tenant's work waits, unclaimed, until the tenant is enabled again: the job ends
   * here, and the reaper leaves the task alone meanwhile and dispatches it once the tenant is back
   * (find-dispatchable.ts). Runs already going finish, and a canceled task's notice to its agent
   * still goes out (its claim is refused and afterRefusedClaim tells the agent). When the answer
   * is not to be had (Postgres away), the run goes on: its claim is what decides.
   */
  private async waitsForTenant(job: RunTaskJob): Promise<boolean> {
    const { tenants, store } = this.deps;
    if (!tenants) return false;
    const isActive = (maxAgeMs?: number) => tenants.isActive(job.tenantId, maxAgeMs).catch(() => true);
    // A "disabled" read up to the cache's TTL ago may predate the tenant's enabling, which is just
    // when the reaper dispatches its backlog: a run is turned away only on a recent read (a
    // disabled tenant's flood of jobs then costs one lookup a second, not one each).
    if ((await isActive()) || (await isActive(REFUSAL_READ_MAX_AGE_MS))) return false;
    const record = await store.getTaskRecord(job.tenantId, job.taskId).catch(() => null);
    return record?.state !== TaskState.CANCELED;
  }

  private async runTraced(job: RunTaskJob): Promise<void> {
    const { store, config, workerId } = this.deps;
    if (this.draining) {
      // Taken while shutting down: leave the task to another worker.
      const record = await store.getTaskRecord(job.tenantId, job.taskId);
      if (record)
        this.heldBack.push({
          tenantId: job.tenantId,
          taskId: job.taskId,
          version: record.version,
          attempts: record.attempts,
          nonce: `d${Date.now()}`,
          ...injectTraceContext(),
        });
      return;
    }
    let claim: ClaimResult | null = null;
    let waits = false;
    // The lease starts no earlier than the claim is sent: the lease keeper counts from here.
    let claimSentAt = performance.now();
    // Counted from before the tenant check: a drain that began during it waits for this run too.
    this.claiming++;
    try {
      waits = await this.waitsForTenant(job);
      claimSentAt = performance.now();
      if (!waits)
        claim = await store.claimTask({
          tenantId: job.tenantId,
          taskId: job.taskId,
          workerId,
          leaseMs: config.leaseMs,
        });
    } finally {
      this.claiming--;
    }
    if (waits) return;
    if (!claim) return afterRefusedClaim(this.deps, job);
    recordDispatchLatency(this.deps, claim, job);
    // A lapsed lease on the last attempt is the reaper's to fail; a duplicate dispatch that
    // re-claimed it first must not start one run more than MAX_ATTEMPTS. It fails it as the reaper
    // would.
    if (!claim.movedToWorking && claim.task.attempts > config.maxAttempts)
      return failRunAndTell(this.deps, claim.task, LEASE_EXHAUSTED_MESSAGE, 'lease expired', this.deps.log);
    // The grace period ended while this claim was in flight: the agent must not start now. (The
    // claim's WORKING event is committed; its hint goes out as for any run.)
    if (this.handingBack) {
      if (claim.movedToWorking) void this.deps.writer.announce(claim.task);
      return this.handBack(claim.task);
    }
    const key = `${job.tenantId}/${job.taskId}`;
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    const controller = new AbortController();
    let stopReason: StopReason | null = null;
    const stop = (reason: StopReason) => {
      if (stopReason) return;
      stopReason = reason;
      controller.abort(new RunEndedError(reason === 'shutdown' ? 'lease-lost' : reason));
    };
    // A run of this task still active here has lost its lease (the claim succeeded): this
    // process's event loop stalled past the lease and the re-dispatch came back to it. The claim's
    // new lease token already refuses that run's writes; stop it now rather than at its next one.
    this.active.get(key)?.stop('lease-lost');
    const entry = { stop, done };
    this.active.set(key, entry);
    try {
      await this.execute(claim, controller, () => stopReason, stop, claimSentAt, job.outageRefunds ?? 0);
    } finally {
      if (this.active.get(key) === entry) this.active.delete(key);
      finish();
    }
  }

  /** Takes no new runs from now on; re-dispatches wait for `releaseHeldBack`. */
  beginDrain(): void {
    this.draining = true;
  }

  /** After the consumer closed: enqueue the dispatches held back while draining. */
  async releaseHeldBack(): Promise<void> {
    for (const dispatch of this.heldBack.splice(0)) {
      await this.deps.dispatcher
        .enqueue(dispatch)
        .catch((err: unknown) =>
          this.deps.log.warn(
            { err, taskId: dispatch.taskId },
            'hand-back enqueue failed; the reaper will dispatch',
          ),
        );
    }
  }

  /** Stops every active run with `reason` and waits for each to settle. */
  async stopAll(reason: StopReason): Promise<void> {
    if (reason === 'shutdown') this.handingBack = true;
    const runs = [...this.active.values()];
    for (const run of runs) run.stop(reason);
    await Promise.all(runs.map((r) => r.done));
  }

  /** Resolves when no run is active, or after `timeoutMs`. */
  async idle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.activeCount > 0 && Date.now() < deadline) {
      // Always give the event loop a turn: with only claims in flight nothing here is pending, and
      // an already-settled race would spin without letting their answers in.
      const runs = [...this.active.values()].map((r) => r.done);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        if (runs.length > 0)
          void Promise.all(runs).then(() => {
            clearTimeout(timer);
            resolve();
          });
      });
    }
    return this.activeCount === 0;
  }

  private async execute(
    claim: ClaimResult,
    controller: AbortController,
    stopReason: () => StopReason | null,
    stop: (reason: StopReason) => void,
    /** performance.now() before the claim was sent (the lease keeper counts from it). */
    claimSentAt: number,
    /** Outage hand-backs of this task in a row before this run (RunTaskJob.outageRefunds). */
    outageRefunds: number,
  ): Promise<void> {
    const { deps } = this;
    const task = claim.task;
    const log = lazyChild(deps.log, {
      tenantId: task.tenantId,
      taskId: task.id,
      agentId: task.agentId,
      attempt: task.attempts,
    });
    // Set when a renewal failed because Postgres was away: a self-fence then was the outage's doing.
    let renewalFoundStoreAway = false;
    // Renew from the claim on: loading the agent can stall longer than the lease during an outage,
    // and a lease that lapses before the agent starts lets another worker run the task while this
    // one runs it too (found by the fault-injection suite).
    const stopLease = keepLease(
      deps.store,
      {
        tenantId: task.tenantId,
        taskId: task.id,
        leaseOwner: leaseOwnerOf(task),
        leaseMs: deps.config.leaseMs,
      },
      (reason) => stop(reason),
      (err) => {
        if (isStoreGone(err)) renewalFoundStoreAway = true;
        log.warn({ err }, 'lease renewal failed');
      },
      { from: claimSentAt },
    );
    let prepared: { agent: Agent; ctx: RunContext } | undefined;
    try {
      // Not awaited: the agent need not wait a Redis round trip to start. The run's own hints go
      // out after it on the same connection, so subscribers still see them in order; announce
      // never throws (a lost hint only makes subscribers read the log).
      if (claim.movedToWorking) void deps.writer.announce(claim.task);
      const registration = await deps.agents.getAgent(task.tenantId, task.agentId);
      const agent = registration ? deps.findAgent(registration.executor) : undefined;
      if (!registration || !agent) {
        log.error({ executor: registration?.executor }, 'no agent implementation for this task');
        // Registered, but not built into this worker: another may have it (a rolling upgrade that
        // adds an executor, a fleet of mixed builds). Retried like an agent error, then failed.
        if (registration)
          await retryOrFail(
            this.deps,
            claim.task,
            `executor ${registration.executor} is not built into this worker`,
            log,
            new AgentFailure(NO_AGENT_MESSAGE),
          ).catch((err: unknown) => log.warn({ err }, 'could not retry or fail the task'));
        else
          await failRun(this.deps, claim.task, NO_AGENT_MESSAGE, 'agent not available').catch(
            (err: unknown) => log.warn({ err }, 'could not fail task'),
          );
        return;
      }
      // A shutdown stop leaves the run its writes: it holds its lease until handBack releases it.
      const refused = () => controller.signal.aborted && stopReason() !== 'shutdown';
      const run = { signal: controller.signal, stop, refused };
      prepared = { agent, ctx: buildRunContext(deps, claim, registration, run, log) };
    } catch (err) {
      // The agent could not be looked up or set up (the agent directory unreachable, say). The
      // task must not sit leased to a run that never starts until the lease lapses: it is retried
      // with backoff like an agent error, and fails after the last attempt.
      log.warn({ err }, 'could not start the agent');
      stopLease();
      // Postgres away is no fault of the task's: it goes back without spending an attempt.
      if (isStoreGone(err)) await this.afterOutage(claim.task, log, outageRefunds);
      else await retryOrFail(this.deps, claim.task, 'could not start the agent', log);
      return;
    } finally {
      if (!prepared) stopLease();
    }
    const { agent, ctx } = prepared;
    const unwatch = watchForCancel(
      deps,
      task,
      () => stop('canceled'),
      () => ctx.writing,
    );
    const windowMs = agent.quickReplyWindowMs ?? deps.config.defaultQuickReplyMs;
    const windowTimer = setTimeout(
      () => void this.upgrade(ctx).catch((err: unknown) => log.warn({ err }, 'upgrade failed')),
      windowMs,
    );
    // An agent that never returns would hold its worker slot and lease forever: past the run
    // timeout the run is abandoned (its later writes are refused) and treated as an error.
    let runTimer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      if (deps.config.runTimeoutMs > 0)
        runTimer = setTimeout(() => resolve('timeout'), deps.config.runTimeoutMs);
    });
    // A stopped run whose agent ignores its aborted signal is let go after the stop grace.
    let abandonTimer: NodeJS.Timeout | undefined;
    let resolveAbandoned: (outcome: 'abandoned') => void = () => undefined;
    const abandoned = new Promise<'abandoned'>((resolve) => (resolveAbandoned = resolve));
    const startGrace = () =>
      (abandonTimer = setTimeout(() => resolveAbandoned('abandoned'), deps.config.stopGraceMs));
    if (controller.signal.aborted) startGrace();
    else controller.signal.addEventListener('abort', startGrace, { once: true });
    // The agent failed because its writes found Postgres away (settleRunError): handed back below.
    let storeOutage = false;
    try {
      // Judged when the agent returns: one that returned before any stop has finished, and is
      // completed even if a shutdown lands while that write is under way. One that returned
      // after its signal aborted may just have stopped between steps, as agents are told to
      // (the slow agent does): on a shutdown that run is handed back, not completed.
      const execution = agent
        .execute(ctx)
        .then(() => (controller.signal.aborted ? ('stopped' as const) : ('returned' as const)));
      const outcome = await Promise.race([execution, timedOut, abandoned]);
      if (outcome === 'abandoned') {
        ctx.close(stopReason() === 'canceled' ? 'canceled' : 'lease-lost');
        log.warn({ stopGraceMs: deps.config.stopGraceMs }, 'agent ignored its stop signal; run abandoned');
        await ctx.drain();
      } else if (outcome === 'timeout') {
        ctx.close('lease-lost');
        controller.abort(new RunEndedError('lease-lost'));
        log.error({ runTimeoutMs: deps.config.runTimeoutMs }, 'agent run timed out');
        // The agent may still be at work: a retry dispatched now could run beside it on another
        // worker. Like a stopped run, it gets the stop grace to return, under this run's lease.
        await Promise.race([execution.catch(() => undefined), abandoned]);
        await ctx.drain();
        await retryOrFail(this.deps, ctx.current, `run timed out after ${deps.config.runTimeoutMs} ms`, log);
      } else if (outcome === 'returned') await ctx.completeIfOpen();
    } catch (err) {
      // A chunk the agent emitted just before it threw is written (or refused) before the outcome.
      await ctx.drain();
      storeOutage = await settleRunError(this.deps, ctx, err, stopReason() !== null, log);
    } finally {
      clearTimeout(runTimer);
      // A stop that comes after the race (during a hand-back, say) must arm no timer.
      controller.signal.removeEventListener('abort', startGrace);
      clearTimeout(abandonTimer);
      clearTimeout(windowTimer);
      stopLease();
      unwatch();
    }
    // A run that wrote its own ending is not stopped by what follows it: a renewal racing that
    // write, or the run's own ending hint, sees the terminal state and stops it as 'canceled'.
    const reason = ctx.ended === 'finished' ? null : stopReason();
    if (reason) {
      ctx.close(reason === 'canceled' ? 'canceled' : 'lease-lost');
      log.info({ reason }, 'agent run stopped');
    }
    if (reason === 'canceled') await releaseHeardCancel(deps, task, log);
    // Only a run that did not end is handed back ('lease-lost' here is the close above, or its
    // abandonment); one that finished within the grace keeps its ending. (A lease really lost
    // makes the release a no-op.)
    if (reason === 'shutdown' && ctx.ended === 'lease-lost') await this.handBack(ctx.current);
    // A run cut short by a Postgres outage (its writes failed, or it fenced itself because its
    // renewals did) gives its lease back with the attempt refunded once Postgres answers: left to
    // lapse, the reaper would count the attempt, and a few short outages would fail a healthy
    // task. A lease another worker took meanwhile makes the release a no-op.
    else if (
      ctx.ended === 'lease-lost' &&
      (storeOutage || (reason === 'lease-lost' && renewalFoundStoreAway))
    )
      await this.afterOutage(ctx.current, log, outageRefunds);
  }

  /** Quick-reply window elapsed: the request becomes a visible Task (ARCHITECTURE.md §5). */
  private async upgrade(ctx: RunContext): Promise<void> {
    if (ctx.ended || ctx.current.visibility !== 'pending') return;
    const leaseOwner = leaseOwnerOf(ctx.current);
    const fresh = await this.deps.store.getTaskRecord(ctx.current.tenantId, ctx.current.id);
    // The upgrade bumps the version: the run takes the new record, or its next write (and the
    // runner's settle write after an error) would start from a version already gone.
    if (fresh && fresh.visibility === 'pending') ctx.adopt(await makeVisible(this.deps, fresh, leaseOwner));
  }

  /** A task no run was working on was canceled (TaskCanceledJob): tell its agent (cancel-notices.ts). */
  canceled(job: TaskCanceledJob): Promise<void> {
    return noticeCanceled(this.deps, job);
  }

  /**
   * A run Postgres going away ended: handed back with its attempt refunded, dispatched again after
   * a backoff. After MAX_OUTAGE_REFUNDS such hand-backs in a row it is retried as an error, its
   * attempt counted, so that a run whose own write brings Postgres down (a backend crash) cannot
   * be refunded forever. Postgres still away, the lease lapses (the reaper's turn).
   */
  private async afterOutage(
    record: ClaimResult['task'],
    log: RunnerDeps['log'],
    refunds: number,
  ): Promise<void> {
    if (refunds >= MAX_OUTAGE_REFUNDS)
      return retryOrFail(this.deps, record, `Postgres went away during ${refunds + 1} runs in a row`, log);
    try {
      await this.handBack(record, {
        outageRefunds: refunds + 1,
        runAfter: new Date(Date.now() + Math.min(30_000, 500 * 2 ** refunds)),
      });
    } catch (err) {
      log.warn({ err }, 'could not hand the task back; its lease lapses and the reaper dispatches it');
    }
  }

  /**
   * Gives the lease back (no attempt counted) and re-dispatches (on shutdown, once the consumer
   * has closed); `outage` carries an outage hand-back's count and backoff.
   */
  private async handBack(
    record: ClaimResult['task'],
    outage?: Pick<Dispatch, 'outageRefunds' | 'runAfter'>,
  ): Promise<void> {
    const released = await this.deps.store.releaseLease({
      tenantId: record.tenantId,
      taskId: record.id,
      leaseOwner: leaseOwnerOf(record),
      refundAttempt: true,
    });
    if (!released) return;
    const dispatch: Dispatch = {
      tenantId: record.tenantId,
      taskId: record.id,
      version: record.version,
      attempts: Math.max(0, record.attempts - 1),
      nonce: `h${Date.now()}`,
      ...outage,
      ...injectTraceContext(),
    };
    if (this.draining) this.heldBack.push(dispatch);
    else
      await this.deps.dispatcher
        .enqueue(dispatch)
        .catch((err: unknown) =>
          this.deps.log.warn({ err }, 'hand-back enqueue failed; the reaper will dispatch'),
        );
  }
}
