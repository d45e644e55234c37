import type { AgentRecord } from '@switchyard/store';
import {
  readUpstreamCard,
  redactUpstreamSettings,
  sealUpstreamSettings,
  UPSTREAM_EXECUTOR,
  upstreamRegistrationSchema,
} from '@switchyard/upstream';
import { z } from '@switchyard/runtime';
import { cardTemplateSchema } from '../cards/card-template.ts';
import { adminInvalid } from './admin-error.ts';
import type { AdminDeps } from './admin-deps.ts';
import { parseAdmin } from './admin-schemas.ts';

/**
 * An upstream registration: `settings` names the upstream card URL (and binding and credentials);
 * `card` is optional and overrides only the name, description and version; the skills and modes
 * always come from the upstream card, read now through the SSRF rules.
 */
const upstreamBody = z.object({
  executor: z.literal(UPSTREAM_EXECUTOR),
  card: cardTemplateSchema.partial().optional(),
  settings: upstreamRegistrationSchema,
});

export function isUpstreamBody(raw: unknown): boolean {
  return (
    typeof raw === 'object' && raw !== null && (raw as { executor?: unknown }).executor === UPSTREAM_EXECUTOR
  );
}

export async function upstreamRegistration(raw: unknown, deps: Pick<AdminDeps, 'secrets' | 'urlPolicy'>) {
  const body = parseAdmin(upstreamBody, raw);
  let facts;
  try {
    facts = await readUpstreamCard(body.settings, deps.urlPolicy);
  } catch (err) {
    const reason = err instanceof Error ? err.message.slice(0, 300) : 'unknown error';
    throw adminInvalid(`could not read the upstream agent card: ${reason}`, [
      { field: 'settings.cardUrl', description: reason },
    ]);
  }
  const { protocolVersions: _versions, ...upstreamCard } = facts;
  const card = cardTemplateSchema.safeParse({
    ...upstreamCard,
    ...(body.card?.name ? { name: body.card.name } : {}),
    ...(body.card?.description ? { description: body.card.description } : {}),
    ...(body.card?.version ? { version: body.card.version } : {}),
  });
  if (!card.success)
    throw adminInvalid('the upstream agent card cannot be republished', [
      { field: 'settings.cardUrl', description: card.error.issues[0]?.message ?? 'invalid card' },
    ]);
  return {
    card: card.data,
    executor: UPSTREAM_EXECUTOR,
    settings: { ...sealUpstreamSettings(body.settings, deps.secrets) },
  };
}

/** Registrations as the admin API shows them: sealed upstream credentials are masked. */
export function redact<T extends Pick<AgentRecord, 'executor' | 'settings'>>(agent: T): T {
  return agent.executor === UPSTREAM_EXECUTOR
    ? { ...agent, settings: redactUpstreamSettings(agent.settings) }
    : agent;
}
