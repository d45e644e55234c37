import { isTaskState, type ListTasksRequest, type Task, type TaskState } from '@switchyard/protocol';
import type { Command, CommandContext } from '../command.ts';
import { connect, intOption } from '../connect.ts';
import { ExitCode } from '../exit-codes.ts';
import { AGENT_OPTIONS } from '../options.ts';
import { oneLine, partsText, stateName } from '../render.ts';
import { formatTable } from '../table.ts';
import { UsageError } from '../usage-error.ts';

export const listCommand: Command = {
  words: ['list'],
  args: ['agent-url'],
  options: [...AGENT_OPTIONS, 'json', 'state', 'context', 'page-size', 'page-token', 'all'],
  usage: '[--state S] [--context C] [--page-size N] [--page-token T] [--all] [--json]',
  summary: 'List your tasks, newest first, as a table (--all follows every page).',
  async run(ctx: CommandContext, [agentUrl = '']) {
    const { values, out } = ctx;
    const pageSize = intOption(values['page-size'], 'page-size', { min: 1, max: 100 });
    const request: ListTasksRequest = {
      ...(values.state !== undefined ? { status: parseState(values.state) } : {}),
      ...(values.context !== undefined ? { contextId: values.context } : {}),
      ...(pageSize !== undefined ? { pageSize } : {}),
      ...(values['page-token'] !== undefined ? { pageToken: values['page-token'] } : {}),
    };
    const client = await connect(ctx, agentUrl);
    let tasks: Task[];
    let nextPageToken = '';
    if (values.all) {
      tasks = [];
      for await (const task of client.listAllTasks(request, { signal: ctx.signal })) tasks.push(task);
    } else {
      const page = await client.listTasks(request, { signal: ctx.signal });
      tasks = page.tasks ?? [];
      nextPageToken = page.nextPageToken ?? '';
      if (out.json) {
        out.document(page);
        return ExitCode.OK;
      }
    }
    if (out.json) {
      out.document({ tasks, nextPageToken: '', totalSize: tasks.length });
      return ExitCode.OK;
    }
    const rows = tasks.map((t) => [
      t.id,
      stateName(t.status.state),
      t.status.timestamp ?? '',
      t.contextId ?? '',
      oneLine(partsText(t.status.message?.parts), 40),
    ]);
    for (const line of formatTable(['TASK', 'STATE', 'UPDATED', 'CONTEXT', 'STATUS'], rows)) out.out(line);
    if (nextPageToken) out.err(`more: --page-token ${nextPageToken} (or --all)`);
    return ExitCode.OK;
  },
};

/** `working`, `WORKING` or `TASK_STATE_WORKING`. */
function parseState(value: string): TaskState {
  const name = value.toUpperCase().replace(/-/g, '_');
  const state = name.startsWith('TASK_STATE_') ? name : `TASK_STATE_${name}`;
  if (!isTaskState(state)) throw new UsageError(`--state: unknown task state ${value}`);
  return state;
}
