import { AdminClient } from '../../admin/admin-client.ts';
import type { ApiKeyInfo } from '../../admin/admin-types.ts';
import type { Command, CommandContext } from '../command.ts';
import { jsonOption } from '../connect.ts';
import { ExitCode } from '../exit-codes.ts';
import { ADMIN_OPTIONS, type OptionName } from '../options.ts';
import { formatTable } from '../table.ts';
import { UsageError } from '../usage-error.ts';

/** Default server when neither --server nor SWITCHYARD_SERVER is set: a local gateway. */
const DEFAULT_SERVER = 'http://localhost:8080';

const base: readonly OptionName[] = [...ADMIN_OPTIONS, 'json'];

function admin(ctx: CommandContext): AdminClient {
  const token = ctx.values['admin-token'] ?? ctx.env['SWITCHYARD_ADMIN_TOKEN'];
  if (!token) throw new UsageError('admin commands need --admin-token or SWITCHYARD_ADMIN_TOKEN');
  return new AdminClient({
    serverUrl: ctx.values.server ?? ctx.env['SWITCHYARD_SERVER'] ?? DEFAULT_SERVER,
    token,
  });
}

/** Prints the JSON document, or the human lines. */
function print(ctx: CommandContext, value: unknown, human: () => string[]): number {
  if (ctx.out.json) ctx.out.document(value);
  else for (const line of human()) ctx.out.out(line);
  return ExitCode.OK;
}

export const adminCommands: Command[] = [
  {
    words: ['admin', 'tenants', 'create'],
    args: ['tenant-id'],
    options: [...base, 'name'],
    usage: '[--name NAME] [--json]',
    summary: 'Create a tenant; prints its webhook signing secret once.',
    async run(ctx, [id = '']) {
      const created = await admin(ctx).createTenant({ id, name: ctx.values.name ?? id });
      return print(ctx, created, () => [
        `tenant ${created.tenant.id} (${created.tenant.name})`,
        `webhook secret: ${created.webhookSecret}`,
      ]);
    },
  },
  {
    words: ['admin', 'tenants', 'list'],
    args: [],
    options: base,
    usage: '[--json]',
    summary: 'List tenants.',
    async run(ctx) {
      const tenants = await admin(ctx).listTenants();
      return print(ctx, { tenants }, () =>
        formatTable(
          ['TENANT', 'NAME', 'CREATED', 'DISABLED', 'RUN CAP'],
          tenants.map((t) => [t.id, t.name, t.createdAt, t.disabledAt ?? '', runCapText(t.maxRunning)]),
        ),
      );
    },
  },
  {
    words: ['admin', 'tenants', 'cap'],
    args: ['tenant-id', 'N|none|default'],
    options: base,
    usage: '[--json]',
    summary: "Cap a tenant's runs at once across the workers at N (none: no cap; default: the fleet's).",
    async run(ctx, [tenantId = '', runs = '']) {
      const tenant = await admin(ctx).setTenantMaxRunning(tenantId, parseRunCap(runs));
      return print(ctx, tenant, () => [
        `tenant ${tenant.id}: ${runCapText(tenant.maxRunning) || 'fleet default'}`,
      ]);
    },
  },
  {
    words: ['admin', 'agents', 'put'],
    args: ['tenant-id', 'agent-id'],
    options: [...base, 'executor', 'card', 'settings'],
    usage:
      '--executor echo|booking|invoice-reconciler|slow|conformance|a2a-upstream [--card JSON|FILE] [--settings JSON|FILE] [--json]',
    summary: 'Create or replace an agent registration (without --card, a minimal card); prints its card URL.',
    async run(ctx, [tenantId = '', agentId = '']) {
      const executor = ctx.values.executor;
      if (!executor) throw new UsageError('--executor is required');
      const card =
        ctx.values.card !== undefined
          ? await jsonOption(ctx.values.card, 'card')
          : defaultCard(agentId, executor);
      const settings =
        ctx.values.settings !== undefined ? await jsonOption(ctx.values.settings, 'settings') : {};
      if (!isObject(card) || !isObject(settings))
        throw new UsageError('--card and --settings must be JSON objects');
      const result = await admin(ctx).putAgent(tenantId, agentId, { card, executor, settings });
      return print(ctx, result, () => [
        `agent ${tenantId}/${agentId} (${executor})`,
        ...(result.urls ? [`card: ${result.urls.card}`] : []),
      ]);
    },
  },
  {
    words: ['admin', 'agents', 'list'],
    args: ['tenant-id'],
    options: base,
    usage: '[--json]',
    summary: "List a tenant's agents.",
    async run(ctx, [tenantId = '']) {
      const agents = await admin(ctx).listAgents(tenantId);
      return print(ctx, { agents }, () =>
        formatTable(
          ['AGENT', 'EXECUTOR', 'CARD'],
          agents.map((a) => [a.id, a.executor, a.urls?.card ?? '']),
        ),
      );
    },
  },
  {
    words: ['admin', 'agents', 'rm'],
    args: ['tenant-id', 'agent-id'],
    options: base,
    usage: '[--json]',
    summary: 'Delete an agent registration.',
    async run(ctx, [tenantId = '', agentId = '']) {
      await admin(ctx).deleteAgent(tenantId, agentId);
      return print(ctx, {}, () => [`deleted agent ${tenantId}/${agentId}`]);
    },
  },
  {
    words: ['admin', 'keys', 'create'],
    args: ['tenant-id'],
    options: [...base, 'principal', 'role', 'description', 'expires-at'],
    usage: '--principal NAME [--role user|tenant_admin] [--description TEXT] [--expires-at RFC3339] [--json]',
    summary: 'Issue an API key (that stops working at --expires-at); prints the key once.',
    async run(ctx, [tenantId = '']) {
      const { principal, role = 'user', description, 'expires-at': expiresAt } = ctx.values;
      if (!principal) throw new UsageError('--principal is required');
      if (role !== 'user' && role !== 'tenant_admin')
        throw new UsageError(`--role must be user or tenant_admin, not ${role}`);
      const issued = await admin(ctx).createApiKey(tenantId, {
        principal,
        role,
        ...(description ? { description } : {}),
        ...(expiresAt ? { expiresAt } : {}),
      });
      return print(ctx, issued, () => [...describeKey(issued.key), `key: ${issued.plaintext}`]);
    },
  },
  {
    words: ['admin', 'keys', 'list'],
    args: ['tenant-id'],
    options: base,
    usage: '[--json]',
    summary: "List a tenant's API keys (never the keys themselves).",
    async run(ctx, [tenantId = '']) {
      const keys = await admin(ctx).listApiKeys(tenantId);
      return print(ctx, { keys }, () =>
        formatTable(
          ['KEY ID', 'PREFIX', 'PRINCIPAL', 'ROLE', 'CREATED', 'REVOKED'],
          keys.map((k) => [k.id, k.keyPrefix, k.principal, k.role, k.createdAt, k.revokedAt ?? '']),
        ),
      );
    },
  },
  {
    words: ['admin', 'keys', 'rotate'],
    args: ['tenant-id', 'key-id'],
    options: base,
    usage: '[--json]',
    summary: 'Issue a replacement key and revoke the old one; prints the new key once.',
    async run(ctx, [tenantId = '', keyId = '']) {
      const issued = await admin(ctx).rotateApiKey(tenantId, keyId);
      return print(ctx, issued, () => [...describeKey(issued.key), `key: ${issued.plaintext}`]);
    },
  },
  {
    words: ['admin', 'keys', 'revoke'],
    args: ['tenant-id', 'key-id'],
    options: base,
    usage: '[--json]',
    summary: 'Revoke an API key at once on every gateway.',
    async run(ctx, [tenantId = '', keyId = '']) {
      await admin(ctx).revokeApiKey(tenantId, keyId);
      return print(ctx, {}, () => [`revoked key ${keyId}`]);
    },
  },
];

function describeKey(key: ApiKeyInfo): string[] {
  const expiry = key.expiresAt ? `, expires ${key.expiresAt}` : '';
  return [`key id ${key.id} for ${key.principal} (${key.role}) in tenant ${key.tenantId}${expiry}`];
}

/** A minimal card template when --card is not given: the gateway adds interfaces and security. */
function defaultCard(agentId: string, executor: string): Record<string, unknown> {
  return { name: agentId, description: `${executor} agent`, version: '1.0.0', skills: [] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `N` caps at N; `none` is no cap (0); `default` follows the fleet's TENANT_MAX_RUNNING (null). */
function parseRunCap(text: string): number | null {
  if (text === 'default') return null;
  if (text === 'none') return 0;
  if (!/^[1-9][0-9]{0,6}$/.test(text)) {
    throw new UsageError(`runs must be a positive whole number, none or default, not "${text}"`);
  }
  return Number(text);
}

/** '' while the tenant follows the fleet's cap. */
function runCapText(maxRunning: number | null | undefined): string {
  if (maxRunning === null || maxRunning === undefined) return '';
  if (maxRunning === 0) return 'none';
  return maxRunning === 1 ? '1 run' : `${maxRunning} runs`;
}
