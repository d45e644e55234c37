import type { Registry } from 'prom-client';

/** What every metric family builder gets from createMetrics. */
export interface FamilyContext {
  /** This process's registry; every metric registers here only (never prom-client's global one). */
  registry: Registry;
  /** Bounds a free-form label's distinct values (label-guard.ts). */
  label: (label: string, value: string) => string;
  /** A once-per-scrape, failure-isolated wrapper around an app-supplied metrics source. */
  source: <T>(collector: string, fn: () => Promise<T> | T) => () => Promise<T | undefined>;
}
