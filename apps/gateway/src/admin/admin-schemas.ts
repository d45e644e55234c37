import type { Request } from 'express';
import { z } from '@switchyard/runtime';
import { cardTemplateSchema } from '../cards/card-template.ts';
import { readJsonBody } from '../http/read-json-body.ts';
import { adminInvalid } from './admin-error.ts';

/** Tenant and agent ids are URL path segments and Redis key parts: the schema's slug rule. */
export const slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lowercase letters, digits and -, at most 63');

export const newTenantBody = z.object({ id: slug, name: z.string().min(1).max(200) });

export const agentBody = z.object({
  card: cardTemplateSchema,
  executor: z.string().min(1),
  settings: z.record(z.string(), z.unknown()).default({}),
});

export const newApiKeyBody = z.object({
  principal: z.string().min(1).max(200),
  role: z.enum(['user', 'tenant_admin']),
  description: z.string().max(500).optional(),
});

/** Reads and validates a JSON body; every problem becomes INVALID_ARGUMENT with field violations. */
export async function readAdminBody<S extends z.ZodType>(
  req: Request,
  schema: S,
  limitBytes: number,
): Promise<z.infer<S>> {
  return parseAdmin(schema, (await readJsonBody(req, limitBytes)) ?? {});
}

export function parseAdmin<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw adminInvalid(
    'Invalid request body',
    result.error.issues.map((issue) => ({
      field: issue.path.join('.') || '(body)',
      description: issue.message,
    })),
  );
}
