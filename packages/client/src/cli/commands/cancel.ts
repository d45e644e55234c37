import type { Command, CommandContext } from '../command.ts';
import { connect } from '../connect.ts';
import { ExitCode } from '../exit-codes.ts';
import { AGENT_OPTIONS } from '../options.ts';
import { renderTask } from '../render.ts';

export const cancelCommand: Command = {
  words: ['cancel'],
  args: ['agent-url', 'task-id'],
  options: [...AGENT_OPTIONS, 'json'],
  usage: '[--json]',
  summary: 'Cancel a task (an already finished task is TaskNotCancelable, exit 2).',
  async run(ctx: CommandContext, [agentUrl = '', taskId = '']) {
    const client = await connect(ctx, agentUrl);
    const task = await client.cancelTask(taskId, { signal: ctx.signal });
    if (ctx.out.json) ctx.out.document(task);
    else for (const line of renderTask(task)) ctx.out.out(line);
    return ExitCode.OK;
  },
};
