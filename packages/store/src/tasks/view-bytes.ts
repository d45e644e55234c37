import { sql, type Expression, type RawBuilder } from 'kysely';

/*
 * What a task's view weighs, measured in Postgres before any of it is read, so that a response can
 * stop at its byte budget (page-budget.ts) without the gateway ever holding what it leaves out.
 *
 * Every size is `octet_length(value::text)`: the text Postgres renders for a jsonb value is the
 * text it sends the gateway for it, so this is the received size, not a guess. The stored size
 * (`pg_column_size`) would spare that rendering, but it can be smaller by two orders of magnitude
 * for content chosen to be: TOAST compresses a 4 MiB message of repeated text to a few tens of KiB
 * (pglz reaches about 90:1), and jsonb keeps `1e308` in a few bytes and renders it as 309 digits.
 * The price is a subquery per task on the page, and each counted value rendered twice (here, and
 * when it is sent): measured with pgbench, 0.34 ms more Postgres time for a page of 40 tasks with
 * three short messages each (0.25 → 0.59 ms for the page query), half of it the rendering.
 */

/** The task row's own JSON beside history and artifacts: its status message and metadata. */
export function rowBytes(task: string): RawBuilder<number> {
  const column = (name: string) => sql.ref(`${task}.${name}`);
  return sql<number>`(coalesce(octet_length(${column('status_message')}::text), 0)
    + coalesce(octet_length(${column('metadata')}::text), 0))`;
}

/** The task's history as the view shows it: the newest `historyLength` messages, or all of them. */
export function historyBytes(
  tenantId: string,
  taskId: Expression<string>,
  historyLength: number | undefined,
): RawBuilder<number> {
  return sql<number>`coalesce((select sum(octet_length(h.message::text)) from (
      select m.message from task_messages m
      where m.tenant_id = ${tenantId} and m.task_id = ${taskId}
      order by m.position desc limit ${historyLength ?? null}) h), 0)`;
}

/**
 * Every artifact chunk of the task, superseded ones included: composing the artifacts (name,
 * metadata from the latest chunk that set them) reads all of them.
 */
export function artifactBytes(tenantId: string, taskId: Expression<string>): RawBuilder<number> {
  // Summed as int4 the total is a bigint, which pg hands back as a number (db.ts); a sum of
  // bigints would be a numeric, a string.
  return sql<number>`coalesce((select sum(octet_length(c.parts::text)
        + octet_length(c.artifact_id) + coalesce(octet_length(c.name), 0)
        + coalesce(octet_length(c.description), 0) + coalesce(octet_length(c.metadata::text), 0)
        + coalesce(octet_length(c.extensions::text), 0))
      from artifact_chunks c where c.tenant_id = ${tenantId} and c.task_id = ${taskId}), 0)`;
}
