import { randomUUID } from 'node:crypto';
import type { Agent, AgentContext } from '@switchyard/agents';
import { artifactIdFor, COUNTING_EXECUTOR, decodePlan } from './plan.ts';
import type { ExecutionRow } from './executions.ts';

/** Marks every write of one execution, so the checker can tell which run wrote an event. */
export const EXEC_METADATA_KEY = 'chaosExec';

export interface CountingAgentOptions {
  record(row: ExecutionRow): Promise<void>;
  pid: number;
  workerId: string;
}

/**
 * The chaos run's no-op agent: records the execution, then streams the planned chunks, asks for
 * input or replies. Every write carries the execution id in its metadata. Recording is retried
 * (Postgres may be restarting) until it lands or the run is stopped: a run that never recorded
 * itself also never wrote anything.
 */
export function createCountingAgent(options: CountingAgentOptions): Agent {
  return {
    executor: COUNTING_EXECUTOR,
    card: {
      name: 'Chaos counter',
      description: 'Counts its executions and streams a planned number of chunks (fault-injection suite).',
      version: '1.0.0',
      skills: [{ id: 'count', name: 'Count', description: 'Streams chunks as planned', tags: ['test'] }],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
    },
    async execute(ctx) {
      const execId = randomUUID();
      if (!(await recordExecution(ctx, execId, options))) return;
      const text = ctx.message.parts.map((p) => p.text ?? '').join('');
      const plan = decodePlan(text);
      const metadata = { [EXEC_METADATA_KEY]: execId };
      const firstRun =
        ctx.task.history.find((m) => m.role === 'ROLE_USER')?.messageId === ctx.message.messageId;
      if (plan.reply && firstRun) return ctx.reply({ parts: [{ text: 'reply' }], metadata });
      if (plan.ask && firstRun)
        return ctx.requestInput({ parts: [{ text: 'more input, please' }], metadata });
      const artifactId = artifactIdFor(ctx.message.messageId);
      for (let k = 1; k <= plan.chunks; k++) {
        if (!(await pause(plan.stepMs, ctx.signal))) return;
        if (k === Math.ceil(plan.chunks / 2))
          await ctx.setStatus({ parts: [{ text: `halfway (${k}/${plan.chunks})` }], metadata });
        await ctx.emitArtifact({
          artifactId,
          name: 'out',
          parts: [{ text: `chunk ${k}/${plan.chunks}` }],
          append: k > 1,
          lastChunk: k === plan.chunks,
          metadata: { ...metadata, chunk: k, of: plan.chunks },
        });
      }
      await ctx.complete({ parts: [{ text: 'done' }], metadata });
    },
  };
}

async function recordExecution(ctx: AgentContext, execId: string, o: CountingAgentOptions): Promise<boolean> {
  const row: ExecutionRow = {
    execId,
    taskId: ctx.task.id,
    messageId: ctx.message.messageId,
    attempt: ctx.task.attempt,
    pid: o.pid,
    workerId: o.workerId,
  };
  for (;;) {
    if (ctx.signal.aborted) return false;
    try {
      await o.record(row);
      return true;
    } catch (err) {
      ctx.log.warn({ err }, 'could not record the execution; retrying');
      if (!(await pause(200, ctx.signal))) return false;
    }
  }
}

function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
