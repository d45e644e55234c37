/** Links out of the console: traces in the tracing backend, agent cards on the gateway. */
export interface ConsoleLinks {
  /** Jaeger search for the spans tagged with the task id (the gateway, worker and pusher set it). */
  trace(taskId: string): string;
  agentCard(tenantId: string, agentId: string): string;
}

export function createLinks(options: {
  traceUiUrl: string;
  traceService: string;
  gatewayUrl: string;
}): ConsoleLinks {
  return {
    trace: (taskId) =>
      `${options.traceUiUrl}/search?service=${encodeURIComponent(options.traceService)}` +
      `&tags=${encodeURIComponent(JSON.stringify({ 'switchyard.task_id': taskId }))}`,
    agentCard: (tenantId, agentId) =>
      `${options.gatewayUrl}/agents/${encodeURIComponent(tenantId)}/${encodeURIComponent(agentId)}/.well-known/agent-card.json`,
  };
}

/** Console-internal paths, built in one place so routes and pages agree. */
export const paths = {
  tasks: (query: Record<string, string | undefined> = {}) => withQuery('/tasks', query),
  task: (tenantId: string, taskId: string) =>
    `/tasks/${encodeURIComponent(tenantId)}/${encodeURIComponent(taskId)}`,
  context: (tenantId: string, contextId: string) =>
    `/contexts/${encodeURIComponent(tenantId)}/${encodeURIComponent(contextId)}`,
  queues: (query: Record<string, string | undefined> = {}) => withQuery('/queues', query),
  tenants: () => '/tenants',
  tenantRunCap: (tenantId: string) => `/tenants/${encodeURIComponent(tenantId)}/run-cap`,
  tenantStatus: (tenantId: string, action: 'disable' | 'enable') =>
    `/tenants/${encodeURIComponent(tenantId)}/${action}`,
};

function withQuery(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, v);
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}
