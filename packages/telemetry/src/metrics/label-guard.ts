/** The value a label takes once its budget of distinct values is spent. */
export const OVERFLOW_LABEL = 'other';

/**
 * Bounds the distinct values a free-form label can take in this process. Every label value is a
 * time series in Prometheus for as long as the process lives; a client-chosen JSON-RPC method name
 * or an agent id from a tenant with thousands of agents must not be able to grow that without end.
 * Values past the budget are counted under `other`, so totals stay right.
 */
export function createLabelGuard(maxValues: number): (label: string, value: string) => string {
  const seen = new Map<string, Set<string>>();
  return (label, value) => {
    let values = seen.get(label);
    if (!values) seen.set(label, (values = new Set()));
    if (values.has(value)) return value;
    if (values.size >= maxValues) return OVERFLOW_LABEL;
    values.add(value);
    return value;
  };
}

/**
 * Wraps a metrics source so that the several gauges it feeds call it once per scrape (prom-client
 * collects every metric of a scrape concurrently), and so that a failing source costs the scrape
 * only its own series: the error is reported and the gauges are left empty, never stale.
 */
export function sharedSource<T>(
  fn: () => Promise<T> | T,
  onError: (err: unknown) => void,
): () => Promise<T | undefined> {
  let inFlight: Promise<T | undefined> | undefined;
  return () =>
    (inFlight ??= Promise.resolve()
      .then(fn)
      .catch((err: unknown) => {
        onError(err);
        return undefined;
      })
      .finally(() => {
        inFlight = undefined;
      }));
}
