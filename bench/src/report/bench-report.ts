import type { PostgresCost } from '../measure/postgres-cost.ts';
import type { PostgresCpu } from '../measure/postgres-cpu.ts';
import type { EndToEnd } from '../measure/end-to-end.ts';
import type { FanoutFigures } from '../measure/fanout.ts';
import type { ProcessMemory } from '../measure/memory-sampler.ts';
import type { PushFigures } from '../measure/push.ts';
import type { RequestFigures } from '../measure/requests.ts';
import type { StreamMemory } from '../measure/stream-memory.ts';
import type { Throughput } from '../stats.ts';

export interface TargetCheck {
  target: string;
  goal: string;
  measured: string;
  pass: boolean;
  note?: string;
}

export interface ScalingPoint {
  workers: number;
  gateways: number;
  tasksPerSecond: number;
  submitPerSecond: number;
  cpuMsPerTask?: Record<string, number>;
}

/** Everything one run measured; written as JSON to bench/results/. */
export interface BenchReport {
  mode: string;
  startedAt: string;
  finishedAt: string;
  machine: {
    cpus: number;
    node: string;
    postgres: string;
    /** 1-minute load average before and after: other work on the machine shows up here. */
    loadAverage: { start: number; end: number };
  };
  ceilings: {
    bullmq: Throughput;
    postgresCas: Throughput;
    postgresCasEvent: Throughput;
    /** Postgres CPU per bare write, to set beside a task's (saturation.cpuMsPerTask.postgres). */
    postgresCpuMsPerOp: { cas: number; casEvent: number };
  };
  /** Our end-to-end tasks/s at saturation divided by each ceiling. */
  ratios: { toBullmq: number; toPostgresCas: number; toPostgresCasEvent: number };
  postgresCost: PostgresCost;
  idlePostgresCpu: PostgresCpu & { workerProcesses: number; workerSlots: number };
  saturation: EndToEnd;
  openLoop: EndToEnd[];
  requests: { blockingSend: RequestFigures; getTask: RequestFigures; listTasks: RequestFigures };
  fanout: FanoutFigures;
  streamMemory: StreamMemory;
  push: PushFigures;
  scaling: ScalingPoint[];
  memory: ProcessMemory[];
  targets: TargetCheck[];
}
