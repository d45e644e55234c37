import { Router } from 'express';
import { z } from '@switchyard/runtime';
import { adminInvalid, adminNotFound } from './admin-error.ts';
import type { AdminDeps } from './admin-deps.ts';
import { configIdParam, seqParam, slugParam, uuidParam } from './admin-params.ts';
import { parseAdmin } from './admin-schemas.ts';

const LIMIT_RULE = 'an integer from 1 to 500';

// Empty values count as absent (`?limit=&cursor=` is the first page), as a form or a script that
// fills in what it has would send them. Only plain decimal limits: Number() would take 1e2 and 0x10.
const listQuery = z.object({
  limit: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || v === '' || (/^[1-9][0-9]{0,2}$/.test(v) && Number(v) <= 500),
      LIMIT_RULE,
    )
    .transform((v) => (v === undefined || v === '' ? 50 : Number(v))),
  cursor: z
    .string()
    // base64url of JSON holding a config id of up to 256 characters of any kind (escaped in the
    // JSON, then a third longer): a cursor this API issued runs to about 2,100 characters.
    .max(4096)
    .regex(/^[A-Za-z0-9_-]*$/, 'a nextCursor this API returned')
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
});

/**
 * Push deliveries that exhausted their retries (ARCHITECTURE.md §7). Replaying puts them back to
 * pending with a fresh attempt budget and wakes the pushers.
 */
export function deadLetterRoutes({ admin, outbox, hints }: AdminDeps): Router {
  const router = Router();
  // Like the other tenant routes: an unknown tenant is 404, not an empty list.
  const existing = async (tenantId: string): Promise<string> => {
    if (!(await admin.getTenant(tenantId))) throw adminNotFound('tenant');
    return tenantId;
  };
  router.get('/tenants/:tenantId/dead-letters', async (req, res) => {
    const tenantId = slugParam(req, 'tenantId');
    const query = parseAdmin(
      listQuery,
      Object.fromEntries(new URLSearchParams(req.originalUrl.split('?')[1] ?? '')),
      'query parameters',
    );
    await existing(tenantId);
    try {
      const page = await outbox.listDeadLetters({
        tenantId,
        limit: query.limit,
        ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
      });
      res.json({ deadLetters: page.deliveries, nextCursor: page.nextCursor });
    } catch (err) {
      // The store's decoder refuses what is not a cursor (RangeError); a forged one that decodes
      // (a month 13, a task id of dashes, a NUL, a seq past integer) fails in Postgres as a data
      // exception (SQLSTATE class 22). Either way the cursor is not one this API issued.
      if (query.cursor !== undefined && (err instanceof RangeError || isDataException(err)))
        throw adminInvalid('cursor is not one this server issued', [
          { field: 'cursor', description: 'a nextCursor this API returned' },
        ]);
      throw err;
    }
  });
  // The replay has committed once the store answers: waking the pushers is best effort (they find
  // due deliveries on their own poll), and a Redis that fails or is slow must not turn a done
  // replay into an error, whose retry would then find no dead letter (404).
  const wakePushers = () => void hints.publishPushDue().catch(() => undefined);
  router.post('/tenants/:tenantId/dead-letters\\:replay', async (req, res) => {
    const replayed = await outbox.replayAllDeadLetters(await existing(slugParam(req, 'tenantId')));
    if (replayed > 0) wakePushers();
    res.json({ replayed });
  });
  router.post('/tenants/:tenantId/dead-letters/:taskId/:configId/:seq\\:replay', async (req, res) => {
    const tenantId = slugParam(req, 'tenantId');
    const key = { taskId: uuidParam(req, 'taskId'), configId: configIdParam(req), seq: seqParam(req) };
    await existing(tenantId);
    if (!(await outbox.replayDeadLetter({ tenantId, ...key }))) throw adminNotFound('dead letter');
    wakePushers();
    res.json({ replayed: 1 });
  });
  return router;
}

/** Postgres could not take a value as its column's type (invalid text, a date out of range, …). */
function isDataException(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('22');
}
