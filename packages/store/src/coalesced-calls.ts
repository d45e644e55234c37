/**
 * Calls that arrive while a batch is in flight wait and go together as the next batch: one
 * statement for many callers, without a timer. A lone call runs at once (no added latency when
 * idle); under load the batch grows with what piles up during one round trip (group commit, done
 * by the caller). `runBatch` answers each input in order; if it throws, every call of that batch
 * sees the error.
 */
export function coalescedCalls<I, O>(
  runBatch: (inputs: I[]) => Promise<O[]>,
  maxBatch: number,
): (input: I) => Promise<O> {
  let waiting: Array<{ input: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  let inFlight = false;
  const flush = async () => {
    inFlight = true;
    while (waiting.length > 0) {
      const batch = waiting.slice(0, maxBatch);
      waiting = waiting.slice(batch.length);
      try {
        const outputs = await runBatch(batch.map((c) => c.input));
        batch.forEach((call, k) => call.resolve(outputs[k]!));
      } catch (err) {
        for (const call of batch) call.reject(err);
      }
    }
    inFlight = false;
  };
  return (input) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ input, resolve, reject });
      if (!inFlight) void flush();
    });
}

/**
 * coalescedCalls with one queue per key: calls go together only with calls of the same key (the
 * same tenant's partition, say, so a batch is one statement that prunes to it), and batches of
 * different keys run side by side. A key's queue is dropped when it runs dry.
 */
export function coalescedCallsByKey<I, O>(
  keyOf: (input: I) => string,
  runBatch: (inputs: I[]) => Promise<O[]>,
  maxBatch: number,
): (input: I) => Promise<O> {
  const queues = new Map<string, { call: (input: I) => Promise<O>; pending: number }>();
  return async (input) => {
    const key = keyOf(input);
    let queue = queues.get(key);
    if (!queue) {
      queue = { call: coalescedCalls(runBatch, maxBatch), pending: 0 };
      queues.set(key, queue);
    }
    queue.pending++;
    try {
      return await queue.call(input);
    } finally {
      if (--queue.pending === 0) queues.delete(key);
    }
  };
}

/**
 * Whether a failed statement never reached Postgres: the pool had no connection to give within
 * PG_CONNECT_TIMEOUT_MS, or a new connection was refused. Nothing of it can have been written.
 */
export function neverSent(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  return (
    code === 'ECONNREFUSED' ||
    (typeof message === 'string' && message.includes('timeout exceeded when trying to connect'))
  );
}

/** A thrown value as an Error, to hand back as one call's outcome. */
export const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/**
 * Group commit for one kind of statement (PostgresTaskStore's claims, run endings and sends):
 * calls of one key that arrive while one of theirs is in flight go together through `runBatch`,
 * and every caller meets its own outcome. A lone call runs as `runAlone`. `runBatch` answers each
 * input with its result or the Error that input alone met (a conflict, say). If the batched
 * statement itself fails, nothing of it was written (one statement is one transaction), so each
 * input runs alone: a value Postgres refuses, a deadlock or a timeout fails only the calls it
 * belongs to, never the others that happened to share the statement.
 */
export function coalescedStatements<I, O>(
  keyOf: (input: I) => string,
  runBatch: (inputs: I[]) => Promise<Array<O | Error>>,
  runAlone: (input: I) => Promise<O>,
  maxBatch: number,
): (input: I) => Promise<O> {
  const alone = (input: I) => runAlone(input).catch(asError);
  const call = coalescedCallsByKey<I, O | Error>(
    keyOf,
    async (inputs) => {
      if (inputs.length === 1) return [await alone(inputs[0]!)];
      return runBatch(inputs).catch((err: unknown) =>
        // Refused before anything went to Postgres (no connection to be had): each alone would
        // only wait for one again, doubling the callers' wait under exhaustion; they all fail
        // with it now, and their clients' retries find nothing written.
        neverSent(err) ? inputs.map(() => asError(err)) : Promise.all(inputs.map(alone)),
      );
    },
    maxBatch,
  );
  return async (input) => {
    const outcome = await call(input);
    if (outcome instanceof Error) throw outcome;
    return outcome;
  };
}
