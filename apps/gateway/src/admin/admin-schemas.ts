import type { Request } from 'express';
import type { FieldViolation } from '@switchyard/protocol';
import { z } from '@switchyard/runtime';
import { cardTemplateSchema } from '../cards/card-template.ts';
import { readJsonBody } from '../http/read-json-body.ts';
import { adminInvalid } from './admin-error.ts';
import { SLUG, SLUG_RULE } from './admin-params.ts';
import { REST_RESERVED_SEGMENTS } from '../rest/rest-routes.ts';

/** Tenant and agent ids are URL path segments and Redis key parts: the schema's slug rule. */
export const slug = z.string().regex(SLUG, SLUG_RULE);

// Bodies are strict: a field the API does not know (a misspelling, or one it does not take) is
// refused naming it, instead of being dropped and the call doing something else than asked.
export const newTenantBody = z.strictObject({
  // The REST binding's tenant-prefixed routes (§4.2) start with the tenant, and its routes without
  // one with `tasks`: a tenant of that name could not be told from them.
  id: slug.refine((id) => !REST_RESERVED_SEGMENTS.has(id), {
    message: 'is a REST route name (tasks), which a tenant id cannot be',
  }),
  name: z.string().min(1).max(200),
});

/** A tenant's settings: its cap on runs at once (null: the fleet's TENANT_MAX_RUNNING; 0: none). */
export const tenantUpdateBody = z.strictObject({
  maxRunning: z.number().int().min(0).max(1_000_000).nullable(),
});

/** The top-level fields of an agent registration, bundled or upstream. */
export const AGENT_BODY_FIELDS = ['card', 'executor', 'settings'] as const;

/** A skill id names one skill of the agent: its extended card lists both lists together. */
const cardWithDistinctSkills = cardTemplateSchema.superRefine((card, ctx) => {
  const seen = new Set<string>();
  for (const [list, skills] of [
    ['skills', card.skills],
    ['extendedSkills', card.extendedSkills ?? []],
  ] as const) {
    skills.forEach((skill, i) => {
      if (seen.has(skill.id))
        ctx.addIssue({
          code: 'custom',
          path: [list, i, 'id'],
          message: `skill id ${skill.id} is used twice`,
        });
      seen.add(skill.id);
    });
  }
});

export const agentBody = z.strictObject({
  card: cardWithDistinctSkills,
  executor: z.string().min(1),
  settings: z.record(z.string(), z.unknown()).default({}),
});

export const newApiKeyBody = z.strictObject({
  principal: z.string().min(1).max(200),
  /** The least a key can see, when not given (as the CLI's --role). */
  role: z.enum(['user', 'tenant_admin']).default('user'),
  description: z.string().max(500).optional(),
  /** When the key stops working (RFC 3339 with an offset or Z); never, when absent. */
  expiresAt: z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value))
    .refine((date) => date.getTime() > Date.now(), 'must be in the future')
    .optional(),
});

/** Reads and validates a JSON body; every problem becomes INVALID_ARGUMENT with field violations. */
export async function readAdminBody<S extends z.ZodType>(
  req: Request,
  schema: S,
  limitBytes: number,
): Promise<z.infer<S>> {
  return parseAdmin(schema, (await readJsonBody(req, limitBytes)) ?? {});
}

/** What is being parsed, for the error message: a request body unless said otherwise. */
export type AdminInput = 'request body' | 'query parameters';

export function parseAdmin<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: AdminInput = 'request body',
): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const violations = result.error.issues.flatMap(violationsOf);
  const fields = [...new Set(violations.map((v) => v.field))].join(', ');
  throw adminInvalid(`Invalid ${what}: ${fields}`, violations);
}

function violationsOf(issue: z.core.$ZodIssue): FieldViolation[] {
  const path = issue.path.map(String);
  // One violation per unknown field, named, rather than one for the object that holds them.
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => ({ field: [...path, key].join('.'), description: 'unknown field' }));
  return [{ field: path.join('.') || '(body)', description: issue.message }];
}
