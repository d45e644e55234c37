// The load generator: a process of its own so that the client's CPU is not the platform's event
// loop. It takes one job (JSON in argv[2]), drives the gateways over HTTP, and prints progress
// lines and finally {"result": …} as JSON lines on stdout.
import type { LoadJob } from './jobs.ts';
import { requestLoad } from './request-load.ts';
import { fanout, idleStreams } from './sse-load.ts';
import { submitClosed, submitOpen } from './submit-load.ts';

const job = JSON.parse(process.argv[2] ?? '{}') as LoadJob;

async function run(j: LoadJob): Promise<unknown> {
  switch (j.kind) {
    case 'submit-closed':
      return submitClosed(j, j.agent, j.clients, j.durationMs, j.push);
    case 'submit-open':
      return submitOpen(j, j.agent, j.rate, j.durationMs, j.push);
    case 'requests':
      return requestLoad(j, j.op, j.agent, j.clients, j.durationMs, j.taskIds);
    case 'fanout':
      return fanout(j, j.agent, j.tasks, j.streamsPerTask);
    case 'idle-streams':
      return idleStreams(j, j.agent, j.tasks, j.streamsPerTask);
  }
}

const result = await run(job);
process.stdout.write(`${JSON.stringify({ result })}\n`, () => process.exit(0));
