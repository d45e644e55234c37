/**
 * What the counting agent does for one message; the workload sends it as the message text (JSON),
 * so a re-run after a crash does exactly the same thing.
 */
export interface Plan {
  /** Artifact chunks to stream, one every `stepMs`. */
  chunks: number;
  stepMs: number;
  /** First run asks for input; the continuation run does the work. */
  ask?: boolean;
  /** Answer with a Message (no chunks) instead of a Task. */
  reply?: boolean;
}

export const COUNTING_EXECUTOR = 'chaos-counter';

export function encodePlan(plan: Plan): string {
  return JSON.stringify(plan);
}

export function decodePlan(text: string): Plan {
  try {
    const raw = JSON.parse(text) as Partial<Plan>;
    return {
      chunks: Math.max(0, Math.min(50, Number(raw.chunks ?? 1) | 0)),
      stepMs: Math.max(0, Math.min(5000, Number(raw.stepMs ?? 0) | 0)),
      ...(raw.ask ? { ask: true } : {}),
      ...(raw.reply ? { reply: true } : {}),
    };
  } catch {
    return { chunks: 1, stepMs: 0 };
  }
}

/** The artifact one run streams: one per run message, so chunk k of a run is unambiguous. */
export function artifactIdFor(messageId: string): string {
  return `out-${messageId}`;
}
