import type pg from 'pg';
import type { PlatformProcess } from '../platform/cluster.ts';
import { startCpuMeter, type ServiceProcess } from './cpu-meter.ts';
import { cpuMsPerTask } from './cpu-per-task.ts';
import type { SubmitResult } from '../load/jobs.ts';
import { runLoad } from '../platform/load-generator.ts';
import { API_KEY, TENANT } from '../platform/bench-environment.ts';
import { latencies, round, throughput, type LatencySummary, type Throughput } from '../stats.ts';
import { taskTimings, waitTerminal } from './task-timings.ts';

export interface EndToEnd {
  /** Offered tasks/s for an open-loop run; absent at saturation (closed loop). */
  offeredPerSecond?: number;
  clients?: number;
  gateways: number;
  workers: number;
  /** Non-blocking SendMessage over HTTP, as the load generator saw it. */
  submit: Throughput;
  /** Open loop: how late the load generator sent its requests (included in the submit latency). */
  sendLateMs?: LatencySummary;
  submitErrors: number;
  /** The first failed submit's message, so a run with errors says why. */
  firstSubmitError?: string;
  completed: number;
  /** Tasks COMPLETED per second, from the first submit sent to the last task completed. */
  tasksPerSecond: number;
  /** Submit sent by the client → COMPLETED written. */
  completionMs: LatencySummary;
  /** Create committed → claimed by a worker and moved to WORKING (the agent starts right after). */
  dispatchMs: LatencySummary;
  /**
   * CPU milliseconds per completed task, by platform role and for the Postgres backends (also split
   * by the role they serve), less the idle platform's own use: what a task costs whatever else
   * shares the machine (the load generator's CPU not included).
   */
  cpuMsPerTask?: Record<string, number>;
  /**
   * The share of the machine's cores busy during the run (platform, Postgres, Redis and the load
   * generator): a task costs more CPU when batches are small and processes wake from idle, so half
   * of the peak rate is not half of the machine.
   */
  machineBusy?: number;
  /** The share of the run in which some runnable task waited for a CPU (PSI), where Linux has it. */
  cpuWaitShare?: number;
}

export interface SubmitPlan {
  gateways: string[];
  workers: number;
  agent?: string;
  durationMs: number;
  /** Open loop at this many tasks/s, or closed loop with `clients` callers. */
  rate?: number;
  clients?: number;
  push?: string;
  /**
   * Meter the CPU of these processes and of the database's backends during the run, less what
   * the idle platform uses per second anyway (by role, and 'postgres').
   */
  cpu?: {
    admin: pg.Pool;
    database: string;
    processes: PlatformProcess[];
    /** Servers on this machine metered with the platform (the local Redis). */
    services?: ServiceProcess[];
    idlePerSecond: Record<string, number>;
  };
}

/** Submits non-blocking tasks, waits for them all to finish, and reads their timings from the store. */
export async function measureEndToEnd(
  pool: pg.Pool,
  plan: SubmitPlan,
): Promise<EndToEnd & { ids: string[] }> {
  const target = { gateways: plan.gateways, key: API_KEY, tenant: TENANT };
  const agent = plan.agent ?? 'echo';
  const meter =
    plan.cpu && startCpuMeter(plan.cpu.admin, plan.cpu.database, plan.cpu.processes, plan.cpu.services);
  const sub = await runLoad<SubmitResult>(
    plan.rate
      ? {
          ...target,
          kind: 'submit-open',
          agent,
          rate: plan.rate,
          durationMs: plan.durationMs,
          ...(plan.push ? { push: plan.push } : {}),
        }
      : {
          ...target,
          kind: 'submit-closed',
          agent,
          clients: plan.clients ?? 32,
          durationMs: plan.durationMs,
          ...(plan.push ? { push: plan.push } : {}),
        },
  );
  await waitTerminal(pool, sub.ids);
  const cpu = await meter?.stop();
  const timings = await taskTimings(pool, sub.ids);
  const sentAt = new Map(sub.ids.map((id, i) => [id, sub.sentAt[i]!]));
  const done = timings.filter((t) => t.state === 'TASK_STATE_COMPLETED');
  const firstSent = Math.min(...sub.sentAt);
  const lastDone = Math.max(...done.map((t) => t.updated));
  return {
    ...(plan.rate ? { offeredPerSecond: plan.rate } : { clients: plan.clients ?? 32 }),
    gateways: plan.gateways.length,
    workers: plan.workers,
    submit: throughput({ ops: sub.ids.length, seconds: sub.seconds, latencyMs: sub.latencyMs }),
    ...(sub.lateMs ? { sendLateMs: latencies(sub.lateMs) } : {}),
    submitErrors: sub.errors.count,
    ...(sub.errors.first ? { firstSubmitError: sub.errors.first } : {}),
    completed: done.length,
    tasksPerSecond: round(done.length / Math.max(0.001, (lastDone - firstSent) / 1000), 1),
    completionMs: latencies(done.map((t) => t.updated - sentAt.get(t.id)!)),
    dispatchMs: latencies(timings.flatMap((t) => (t.working === null ? [] : [t.working - t.created]))),
    ...(cpu && plan.cpu && done.length
      ? {
          cpuMsPerTask: cpuMsPerTask(cpu, done.length, plan.cpu.processes, plan.cpu.idlePerSecond),
          machineBusy: round(cpu.machineBusy, 3),
          ...(cpu.cpuWaitShare !== null ? { cpuWaitShare: round(cpu.cpuWaitShare, 3) } : {}),
        }
      : {}),
    ids: sub.ids,
  };
}
