import type { TaskPushNotificationConfig } from '@switchyard/protocol';
import type { Command, CommandContext } from '../command.ts';
import { nextToken } from '../../client/a2a-client.ts';
import { connect } from '../connect.ts';
import { ExitCode } from '../exit-codes.ts';
import { AGENT_OPTIONS } from '../options.ts';
import { formatTable } from '../table.ts';
import { UsageError } from '../usage-error.ts';

const base = [...AGENT_OPTIONS, 'json'] as const;

export const pushCommands: Command[] = [
  {
    words: ['push', 'add'],
    args: ['agent-url', 'task-id', 'webhook-url'],
    options: [...base, 'id', 'token', 'auth-scheme', 'auth-credentials'],
    usage: '[--id ID] [--token T] [--auth-scheme Bearer --auth-credentials SECRET] [--json]',
    summary: "Register a webhook for a task's updates.",
    async run(ctx: CommandContext, [agentUrl = '', taskId = '', url = '']) {
      const { values } = ctx;
      if (values['auth-credentials'] !== undefined && values['auth-scheme'] === undefined) {
        throw new UsageError('--auth-credentials needs --auth-scheme');
      }
      const client = await connect(ctx, agentUrl);
      const config = await client.registerWebhook(
        taskId,
        {
          url,
          id: values.id,
          token: values.token,
          ...(values['auth-scheme'] !== undefined
            ? {
                authentication: {
                  scheme: values['auth-scheme'],
                  ...(values['auth-credentials'] ? { credentials: values['auth-credentials'] } : {}),
                },
              }
            : {}),
        },
        { signal: ctx.signal },
      );
      show(ctx, config);
      return ExitCode.OK;
    },
  },
  {
    words: ['push', 'list'],
    args: ['agent-url', 'task-id'],
    options: base,
    usage: '[--json]',
    summary: "List a task's webhooks.",
    async run(ctx: CommandContext, [agentUrl = '', taskId = '']) {
      const client = await connect(ctx, agentUrl);
      const configs: TaskPushNotificationConfig[] = [];
      let pageToken: string | undefined;
      const followed = new Set<string>();
      do {
        const page = await client.listPushConfigs(taskId, {
          signal: ctx.signal,
          ...(pageToken ? { pageToken } : {}),
        });
        configs.push(...(page.configs ?? []));
        pageToken = nextToken(page.nextPageToken, followed);
      } while (pageToken);
      if (ctx.out.json) ctx.out.document({ configs });
      else
        for (const line of formatTable(
          ['ID', 'URL', 'AUTH'],
          configs.map((c) => [c.id ?? '', c.url, c.authentication?.scheme ?? '']),
        ))
          ctx.out.out(line);
      return ExitCode.OK;
    },
  },
  {
    words: ['push', 'get'],
    args: ['agent-url', 'task-id', 'config-id'],
    options: base,
    usage: '[--json]',
    summary: 'Show one webhook of a task.',
    async run(ctx: CommandContext, [agentUrl = '', taskId = '', configId = '']) {
      const client = await connect(ctx, agentUrl);
      show(ctx, await client.getPushConfig(taskId, configId, { signal: ctx.signal }));
      return ExitCode.OK;
    },
  },
  {
    words: ['push', 'rm'],
    args: ['agent-url', 'task-id', 'config-id'],
    options: base,
    usage: '[--json]',
    summary: 'Delete a webhook (deleting one that is gone succeeds).',
    async run(ctx: CommandContext, [agentUrl = '', taskId = '', configId = '']) {
      const client = await connect(ctx, agentUrl);
      await client.deletePushConfig(taskId, configId, { signal: ctx.signal });
      if (ctx.out.json) ctx.out.document({});
      else ctx.out.out(`deleted push config ${configId} of task ${taskId}`);
      return ExitCode.OK;
    },
  },
];

function show(ctx: CommandContext, config: TaskPushNotificationConfig): void {
  if (ctx.out.json) {
    ctx.out.document(config);
    return;
  }
  ctx.out.out(`push config ${config.id ?? '(no id)'} of task ${config.taskId ?? ''}`);
  ctx.out.out(`  url   ${config.url}`);
  if (config.authentication) ctx.out.out(`  auth  ${config.authentication.scheme}`);
  if (config.token) ctx.out.out('  token (set)');
}
