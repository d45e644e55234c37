import type { Command, CommandContext } from '../command.ts';
import { connect, intOption, MAX_TIMEOUT_SECONDS } from '../connect.ts';
import { exitCodeForState } from '../exit-codes.ts';
import { AGENT_OPTIONS } from '../options.ts';
import { renderEvent, stateName } from '../render.ts';

export const tailCommand: Command = {
  words: ['tail'],
  args: ['agent-url', 'task-id'],
  options: [...AGENT_OPTIONS, 'json', 'stream', 'timeout'],
  usage: '[--no-stream] [--timeout SECONDS] [--json]',
  summary: "Print a task's events until it finishes or asks for input (resumes after disconnects).",
  async run(ctx: CommandContext, [agentUrl = '', taskId = '']) {
    const { out } = ctx;
    const timeoutSeconds = intOption(ctx.values.timeout, 'timeout', { min: 1, max: MAX_TIMEOUT_SECONDS });
    const client = await connect(ctx, agentUrl);
    const task = await client.waitForTask(taskId, {
      signal: ctx.signal,
      stream: ctx.values.stream !== false,
      ...(timeoutSeconds !== undefined ? { timeoutMs: timeoutSeconds * 1000 } : {}),
      onEvent: (event) => (out.json ? out.document(event) : out.out(renderEvent(event))),
      onNotice: (notice) => {
        if (!out.json)
          out.err(
            notice.type === 'polling'
              ? `(polling: ${notice.reason})`
              : `(reconnecting in ${(notice.delayMs / 1000).toFixed(1)}s)`,
          );
      },
    });
    if (!out.json) out.err(`task ${task.id} is ${stateName(task.status.state)}`);
    return exitCodeForState(task.status.state);
  },
};
