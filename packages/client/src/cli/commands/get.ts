import type { Command, CommandContext } from '../command.ts';
import { connect, intOption } from '../connect.ts';
import { exitCodeForState } from '../exit-codes.ts';
import { AGENT_OPTIONS } from '../options.ts';
import { renderTask } from '../render.ts';

export const getCommand: Command = {
  words: ['get'],
  args: ['agent-url', 'task-id'],
  options: [...AGENT_OPTIONS, 'json', 'history'],
  usage: '[--history N] [--json]',
  summary: 'Show a task; the exit code follows its state (a running task exits 0).',
  async run(ctx: CommandContext, [agentUrl = '', taskId = '']) {
    const client = await connect(ctx, agentUrl);
    const historyLength = intOption(ctx.values.history, 'history');
    const task = await client.getTask(taskId, {
      signal: ctx.signal,
      ...(historyLength !== undefined ? { historyLength } : {}),
    });
    if (ctx.out.json) ctx.out.document(task);
    else for (const line of renderTask(task)) ctx.out.out(line);
    return exitCodeForState(task.status.state);
  },
};
