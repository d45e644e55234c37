// @switchyard/chaos: the fault-injection suite (issue 8). `pnpm chaos` runs it; the checker is
// exported for its unit tests and for anyone replaying a saved run (`--json`).
export { runChaos, type ChaosOptions, type ChaosReport } from './run-chaos.ts';
export { check } from './checker.ts';
export { formatReport } from './report.ts';
export type * from './check-types.ts';
