import type { RawRequest } from './fuzz-probe.ts';

/** One request on one route, credentials left to the caller. */
export interface RouteCall {
  name: string;
  binding: 'jsonrpc' | 'rest' | 'admin' | 'dashboard';
  method: string;
  path: string;
  body?: unknown;
}

const METHODS_WITH_PARAMS = (taskId: string, configId: string): Array<[string, unknown]> => [
  ['SendMessage', { message: { messageId: 'auth-probe', role: 'ROLE_USER', parts: [{ text: 'x' }] } }],
  [
    'SendStreamingMessage',
    { message: { messageId: 'auth-probe-s', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
  ],
  ['GetTask', { id: taskId }],
  ['ListTasks', {}],
  ['CancelTask', { id: taskId }],
  ['SubscribeToTask', { id: taskId }],
  ['CreateTaskPushNotificationConfig', { taskId, url: 'http://127.0.0.1:9/auth' }],
  ['GetTaskPushNotificationConfig', { taskId, id: configId }],
  ['ListTaskPushNotificationConfigs', { taskId }],
  ['DeleteTaskPushNotificationConfig', { taskId, id: configId }],
  ['GetExtendedAgentCard', {}],
];

/** Every A2A route of one agent (digest §4.1 methods, §4.2 paths, with and without `/{tenant}`). */
export function a2aRoutes(agentBase: string, tenant: string, taskId: string, configId: string): RouteCall[] {
  const rpc = METHODS_WITH_PARAMS(taskId, configId).map(([method, params], i): RouteCall => ({
    name: `JSON-RPC ${method}`,
    binding: 'jsonrpc',
    method: 'POST',
    path: `${agentBase}/rpc`,
    body: { jsonrpc: '2.0', id: i + 1, method, params },
  }));
  const send = { message: { messageId: 'auth-probe-r', role: 'ROLE_USER', parts: [{ text: 'x' }] } };
  const rest = (prefix: string): RouteCall[] =>
    (
      [
        ['POST', 'message:send', send],
        ['POST', 'message:stream', send],
        ['GET', `tasks/${taskId}`],
        ['GET', 'tasks'],
        ['POST', `tasks/${taskId}:cancel`, {}],
        ['GET', `tasks/${taskId}:subscribe`],
        ['POST', `tasks/${taskId}:subscribe`],
        ['POST', `tasks/${taskId}/pushNotificationConfigs`, { url: 'http://127.0.0.1:9/auth' }],
        ['GET', `tasks/${taskId}/pushNotificationConfigs`],
        ['GET', `tasks/${taskId}/pushNotificationConfigs/${configId}`],
        ['DELETE', `tasks/${taskId}/pushNotificationConfigs/${configId}`],
        ['GET', 'extendedAgentCard'],
      ] as Array<[string, string, unknown?]>
    ).map(([method, path, body]) => ({
      name: `REST ${method} ${prefix}${path}`,
      binding: 'rest',
      method,
      path: `${agentBase}/rest/${prefix}${path}`,
      ...(body === undefined ? {} : { body }),
    }));
  return [...rpc, ...rest(''), ...rest(`${tenant}/`)];
}

/** Every operator route (gateway README "Admin API") and the queue dashboard. */
export function adminRoutes(tenant: string, keyId: string, taskId: string): RouteCall[] {
  const admin = (method: string, path: string, body?: unknown): RouteCall => ({
    name: `admin ${method} ${path}`,
    binding: 'admin',
    method,
    path: `/admin/v1${path}`,
    ...(body === undefined ? {} : { body }),
  });
  const dashboard = (method: string, path: string): RouteCall => ({
    name: `dashboard ${method} ${path}`,
    binding: 'dashboard',
    method,
    path: `/admin/queues${path}`,
  });
  const card = { name: 'Evil', description: 'x', version: '1', skills: [] };
  return [
    admin('GET', '/tenants'),
    admin('POST', '/tenants', { id: 'evil', name: 'Evil' }),
    admin('POST', `/tenants/${tenant}:disable`),
    admin('POST', `/tenants/${tenant}:enable`),
    admin('POST', `/tenants/${tenant}/webhook-secret:rotate`),
    admin('PATCH', `/tenants/${tenant}`, { maxRunning: 1 }),
    admin('GET', `/tenants/${tenant}/agents`),
    admin('PUT', `/tenants/${tenant}/agents/evil`, { executor: 'echo', card }),
    admin('DELETE', `/tenants/${tenant}/agents/echo`),
    admin('GET', `/tenants/${tenant}/api-keys`),
    admin('POST', `/tenants/${tenant}/api-keys`, { principal: 'evil', role: 'tenant_admin' }),
    admin('POST', `/tenants/${tenant}/api-keys/${keyId}:rotate`),
    admin('DELETE', `/tenants/${tenant}/api-keys/${keyId}`),
    admin('GET', `/tenants/${tenant}/dead-letters`),
    admin('POST', `/tenants/${tenant}/dead-letters:replay`),
    admin('POST', `/tenants/${tenant}/dead-letters/${taskId}/cfg/1:replay`),
    dashboard('GET', ''),
    dashboard('GET', '/'),
    dashboard('GET', '/api/queues'),
    dashboard('PUT', '/api/queues/tasks/pause'),
    dashboard('PUT', '/api/queues/tasks/clean/completed'),
    dashboard('PUT', '/api/queues/tasks/empty'),
  ];
}

export function toRequest(base: string, call: RouteCall, headers: Record<string, string>): RawRequest {
  return {
    method: call.method,
    url: `${base}${call.path}`,
    headers: {
      'A2A-Version': '1.0',
      ...(call.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  };
}
