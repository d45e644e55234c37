import type { ConsoleTaskFilter } from '@switchyard/store';
import type { Request } from 'express';
import { badRequest } from '../http/http-error.ts';
import { isSlug, parseState, queryInt, queryString } from '../http/params.ts';

/** The task list's query string: `tenant`, `agent`, `state`, `context`, `q`, `all`, `cursor`, `limit`. */
export interface TaskListQuery {
  filter: Omit<ConsoleTaskFilter, 'tenantId'> & { tenantId?: string };
  cursor?: string;
  limit: number;
}

export function parseTaskListQuery(req: Request): TaskListQuery {
  const tenantId = queryString(req, 'tenant', 63);
  const agentId = queryString(req, 'agent', 63);
  if (tenantId !== undefined && !isSlug(tenantId)) throw badRequest('tenant is not a tenant id');
  if (agentId !== undefined && !isSlug(agentId)) throw badRequest('agent is not an agent id');
  const state = parseState(queryString(req, 'state', 40));
  const contextId = queryString(req, 'context');
  const search = queryString(req, 'q');
  const cursor = queryString(req, 'cursor', 512);
  return {
    filter: {
      ...(tenantId !== undefined ? { tenantId } : {}),
      ...(agentId !== undefined ? { agentId } : {}),
      ...(state !== undefined ? { state } : {}),
      ...(contextId !== undefined ? { contextId } : {}),
      ...(search !== undefined ? { search } : {}),
      visibility: queryString(req, 'all', 5) === '1' ? 'all' : 'task',
    },
    ...(cursor !== undefined ? { cursor } : {}),
    limit: queryInt(req, 'limit', 50, 1, 200),
  };
}

/** The filter back as query parameters (links for the next page, the agent filter…). */
export function filterQuery(filter: TaskListQuery['filter']): Record<string, string | undefined> {
  return {
    tenant: filter.tenantId,
    agent: filter.agentId,
    state: filter.state,
    context: filter.contextId,
    q: filter.search,
    all: filter.visibility === 'all' ? '1' : undefined,
  };
}
