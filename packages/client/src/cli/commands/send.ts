import type { Part } from '@switchyard/protocol';
import { RunTimeoutError } from '../../errors/run-timeout-error.ts';
import { dataPart, userMessage } from '../../messages.ts';
import type { Command, CommandContext } from '../command.ts';
import { connect, intOption, jsonOption, MAX_TIMEOUT_SECONDS } from '../connect.ts';
import { ExitCode, exitCodeForState } from '../exit-codes.ts';
import { AGENT_OPTIONS } from '../options.ts';
import { ProgressDisplay } from '../progress.ts';
import { renderMessage, renderTask, stateName } from '../render.ts';
import type { JsonValue } from '@switchyard/protocol';

export const sendCommand: Command = {
  words: ['send'],
  args: ['agent-url', 'text'],
  options: [...AGENT_OPTIONS, 'json', 'task', 'context', 'data', 'stream', 'timeout'],
  usage: '[--task ID] [--context ID] [--data JSON|FILE] [--no-stream] [--timeout SECONDS] [--json]',
  summary: 'Send a message and wait for the task to finish or ask for input, showing progress.',
  async run(ctx: CommandContext, [agentUrl = '', text = '']) {
    const { values, out } = ctx;
    const timeoutSeconds = intOption(values.timeout, 'timeout', { min: 1, max: MAX_TIMEOUT_SECONDS });
    const extra: Part[] =
      values.data !== undefined ? [dataPart((await jsonOption(values.data, 'data')) as JsonValue)] : [];
    const client = await connect(ctx, agentUrl);
    const message = userMessage(text, { taskId: values.task, contextId: values.context, parts: extra });
    const progress = out.json ? undefined : new ProgressDisplay(out);
    try {
      const result = await client.run(message, {
        signal: ctx.signal,
        stream: values.stream !== false,
        ...(timeoutSeconds !== undefined ? { timeoutMs: timeoutSeconds * 1000 } : {}),
        ...(progress ? { onEvent: (e) => progress.event(e), onNotice: (n) => progress.notice(n) } : {}),
      });
      progress?.stop();
      if (out.json) out.document(result);
      if (result.message) {
        if (!out.json) for (const line of renderMessage(result.message)) out.out(line);
        return ExitCode.OK;
      }
      const task = result.task;
      if (!task) return ExitCode.A2A_ERROR;
      if (!out.json) {
        for (const line of renderTask(task)) out.out(line);
        if (exitCodeForState(task.status.state) === ExitCode.TASK_NEEDS_INPUT) {
          out.err(`The agent is waiting (${stateName(task.status.state)}). Answer with:`);
          out.err(`  switchyard send ${agentUrl} --task ${task.id} "<answer>"`);
        }
      }
      return exitCodeForState(task.status.state);
    } catch (err) {
      progress?.stop();
      if (err instanceof RunTimeoutError && err.task) {
        if (out.json) out.document({ task: err.task });
        else
          out.err(
            `Still ${stateName(err.task.status.state)} after ${timeoutSeconds}s; follow it with: switchyard tail ${agentUrl} ${err.task.id}`,
          );
      }
      throw err;
    }
  },
};
