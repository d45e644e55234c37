import { UrlRefusedError } from '@switchyard/engine';
import {
  CardProblem,
  readUpstreamCard,
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

/**
 * `publicUrl` is this gateway's PUBLIC_URL: an upstream there (its card, or an interface its card
 * names) is this platform calling itself, a loop, refused before anything is fetched. (The worker's
 * hop limit, upstream-hops.ts, stops loops this check cannot see: another name for the platform,
 * or a chain through other deployments.)
 */
export async function upstreamRegistration(
  raw: unknown,
  deps: Pick<AdminDeps, 'secrets' | 'urlPolicy'>,
  publicUrl?: string,
) {
  const body = parseAdmin(upstreamBody, raw);
  if (publicUrl && isOwnUrl(body.settings.cardUrl, publicUrl)) throw selfRefused('its card URL', publicUrl);
  let facts;
  try {
    facts = await readUpstreamCard(body.settings, deps.urlPolicy);
  } catch (err) {
    // Only our own words reach the operator, never an exception's text.
    const reason =
      err instanceof CardProblem || err instanceof UrlRefusedError
        ? err.message.slice(0, 500)
        : 'the document could not be read as an A2A agent card';
    throw adminInvalid(`could not read the upstream agent card: ${reason}`, [
      { field: 'settings.cardUrl', description: reason },
    ]);
  }
  const own = publicUrl ? facts.interfaceUrls.find((url) => isOwnUrl(url, publicUrl)) : undefined;
  if (own && publicUrl) throw selfRefused(`the interface its card names (${own.slice(0, 200)})`, publicUrl);
  const { protocolVersions: _versions, interfaceUrls: _urls, ...upstreamCard } = facts;
  const card = cardTemplateSchema.safeParse({
    ...upstreamCard,
    ...(body.card?.name ? { name: body.card.name } : {}),
    ...(body.card?.description ? { description: body.card.description } : {}),
    ...(body.card?.version ? { version: body.card.version } : {}),
  });
  if (!card.success) {
    const issue = card.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    const description = `${where}${issue?.message ?? 'invalid card'}`;
    throw adminInvalid(`the upstream agent card cannot be republished: ${description}`, [
      { field: 'settings.cardUrl', description },
    ]);
  }
  return {
    card: card.data,
    executor: UPSTREAM_EXECUTOR,
    settings: { ...sealUpstreamSettings(body.settings, deps.secrets) },
  };
}

/**
 * Whether `url` is one of this platform's own A2A routes: same origin as its public URL, and under
 * its path either an agent's routes (`/agents/…`) or the root card (`/.well-known/…`), which serves
 * the default agent. Other paths on the same host (another service behind the same ingress) are
 * not the platform; a loop through them is the hop guard's to stop at run time.
 */
function isOwnUrl(url: string, publicUrl: string): boolean {
  if (!URL.canParse(url) || !URL.canParse(publicUrl)) return false;
  const target = new URL(url);
  const own = new URL(publicUrl);
  if (target.origin !== own.origin) return false;
  const base = own.pathname.replace(/\/+$/, '');
  return [`${base}/agents/`, `${base}/.well-known/`].some((prefix) => target.pathname.startsWith(prefix));
}

function selfRefused(what: string, publicUrl: string) {
  const reason =
    `the upstream agent is this platform itself: ${what} is under its own URL (${publicUrl}). ` +
    'An a2a-upstream agent that calls this platform would start a run of itself on every run; ' +
    'call the agent on this platform directly instead';
  return adminInvalid(reason, [{ field: 'settings.cardUrl', description: reason }]);
}
