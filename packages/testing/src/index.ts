export { resolveTestServices, type TestServices } from './services.ts';
export { createTestDatabase, ensureTemplateDatabase, type TestDatabase } from './test-database.ts';
export { createTestRedis, type TestRedis } from './test-redis.ts';
export { waitFor } from './wait-for.ts';
export { readReadiness, waitForReadiness, type Readiness } from './readiness.ts';
export { REPO_ROOT, startProcess, type RunningProcess } from './child-process.ts';
export { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';
export { freePort } from './free-port.ts';
export { hasRedisServer, spawnRedisServer, waitForRedis } from './redis-server.ts';
