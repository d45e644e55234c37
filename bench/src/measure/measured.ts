/** A measured run before it is summarized: how many operations, how long, and each one's latency. */
export interface Measured {
  ops: number;
  seconds: number;
  latencyMs: number[];
}
