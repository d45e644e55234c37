/** How big each phase is: smoke (CI, seconds), quick (about a minute or two), full (minutes). */
export interface Mode {
  name: 'smoke' | 'quick' | 'full';
  /** Operations per raw ceiling, and concurrent clients of each. */
  ceilingOps: number;
  ceilingClients: number;
  /** Worker processes at the start (scaling goes down from here: 4 → 2 → 1). */
  workers: number;
  /** Worker slots per process; workers × slots is the "100 idle worker slots" of the idle phase. */
  slotsPerWorker: number;
  idleWindowMs: number;
  /** The Postgres-cost batch: its length, and the idle window measured before it as the baseline. */
  costBatchMs: number;
  costBaselineMs: number;
  /** Closed-loop submit callers at saturation, and how long each run lasts. */
  saturationClients: number;
  saturationMs: number;
  /** Open-loop runs at these fractions of the measured peak. */
  openLoopFractions: number[];
  openLoopMs: number;
  requestClients: number;
  requestMs: number;
  /** Unmeasured closed-loop submits first, so no figure includes the processes' cold start (JIT, pools). */
  warmupMs: number;
  fanoutTasks: number;
  /** The fan-out agent: `steps` events over `delayMs`. */
  fanoutAgent: { delayMs: number; steps: number };
  streamsPerTask: number;
  idleStreamTasks: number;
  idleStreamsPerTask: number;
  pushClients: number;
  pushMs: number;
}

export const MODES: Record<Mode['name'], Mode> = {
  smoke: {
    name: 'smoke',
    ceilingOps: 1000,
    ceilingClients: 8,
    workers: 2,
    slotsPerWorker: 50,
    idleWindowMs: 2000,
    costBatchMs: 1000,
    costBaselineMs: 1000,
    saturationClients: 8,
    saturationMs: 1000,
    openLoopFractions: [0.5],
    openLoopMs: 1000,
    requestClients: 4,
    requestMs: 700,
    warmupMs: 500,
    fanoutAgent: { delayMs: 1500, steps: 5 },
    fanoutTasks: 4,
    streamsPerTask: 10,
    idleStreamTasks: 2,
    idleStreamsPerTask: 10,
    pushClients: 4,
    pushMs: 700,
  },
  quick: {
    name: 'quick',
    ceilingOps: 10_000,
    ceilingClients: 16,
    workers: 4,
    slotsPerWorker: 25,
    idleWindowMs: 10_000,
    costBatchMs: 3000,
    costBaselineMs: 3000,
    saturationClients: 32,
    saturationMs: 4000,
    openLoopFractions: [0.25, 0.5, 0.75],
    openLoopMs: 4000,
    requestClients: 16,
    requestMs: 3000,
    warmupMs: 2000,
    fanoutAgent: { delayMs: 4000, steps: 10 },
    fanoutTasks: 20,
    streamsPerTask: 20,
    idleStreamTasks: 10,
    idleStreamsPerTask: 50,
    pushClients: 8,
    pushMs: 3000,
  },
  full: {
    name: 'full',
    ceilingOps: 30_000,
    ceilingClients: 16,
    workers: 4,
    slotsPerWorker: 25,
    idleWindowMs: 30_000,
    costBatchMs: 8000,
    costBaselineMs: 8000,
    saturationClients: 48,
    saturationMs: 10_000,
    openLoopFractions: [0.25, 0.5, 0.75],
    openLoopMs: 10_000,
    requestClients: 16,
    requestMs: 8000,
    warmupMs: 4000,
    fanoutAgent: { delayMs: 6000, steps: 15 },
    fanoutTasks: 50,
    streamsPerTask: 20,
    idleStreamTasks: 20,
    idleStreamsPerTask: 50,
    pushClients: 16,
    pushMs: 8000,
  },
};
