// CLI: seeds the demo tenant, agents and API key, then prints where to reach them.
// Usage: node apps/gateway/src/bin/seed-demo.ts   (env: DATABASE_URL, SWITCHYARD_SECRET_KEY, PUBLIC_URL, SWITCHYARD_DEMO_API_KEY)
import { loadConfigOrExit } from '@switchyard/runtime';
import {
  ApiKeyConflictError,
  createDb,
  createPool,
  createSecretBox,
  PostgresAdminStore,
} from '@switchyard/store';
import { announceSeedRevocations } from '../auth/announce-seed-revocations.ts';
import { loadGatewayConfig } from '../config.ts';
import { demoApiKeyFrom, seedDemo } from '../seed-demo.ts';

const { config, demoApiKey } = loadConfigOrExit('seed-demo', () => ({
  config: loadGatewayConfig(process.env),
  demoApiKey: demoApiKeyFrom(process.env),
}));
const pool = createPool({
  connectionString: config.DATABASE_URL,
  maxConnections: 2,
  applicationName: 'switchyard-seed-demo',
});
try {
  const admin = new PostgresAdminStore({
    db: createDb(pool),
    secrets: createSecretBox(config.SWITCHYARD_SECRET_KEY, config.SWITCHYARD_SECRET_KEY_PREVIOUS),
  });
  const result = await seedDemo({
    admin,
    publicUrl: config.PUBLIC_URL,
    demoApiKey,
    production: config.NODE_ENV === 'production',
  });
  console.log(`tenant: ${result.tenantId}`);
  for (const agent of result.agents) {
    console.log(`\nagent ${agent.id} (executor ${agent.executor})`);
    console.log(`  card:     ${agent.card}`);
    console.log(`  JSON-RPC: ${agent.jsonRpc}`);
    console.log(`  HTTP+JSON: ${agent.rest}`);
  }
  console.log(
    `\nAPI key for ${result.principal} (tenant_admin)${demoApiKey ? '' : ', generated: store it now, it is not shown again'}:`,
  );
  console.log(`  X-API-Key: ${result.apiKey}`);
  if (result.replaced > 0)
    console.log(
      `  (it replaces ${result.replaced} earlier demo key${result.replaced > 1 ? 's' : ''}, now revoked)`,
    );
  if (result.revokedDevelopmentKey)
    console.log('revoked the development demo key (its value is public; NODE_ENV=production)');
  const announced = await announceSeedRevocations({
    redisUrl: config.REDIS_URL,
    prefix: config.SWITCHYARD_REDIS_PREFIX,
    revoked: result.revoked,
  });
  if (!announced)
    console.log(
      '  (Redis did not answer: running gateways drop the revoked keys within 10 s, as their cache expires)',
    );
} catch (err) {
  // The key's own problems (revoked, another principal's) are the operator's to fix: said plainly.
  if (!(err instanceof RangeError || err instanceof ApiKeyConflictError)) throw err;
  console.error(`seed-demo: ${err.message}`);
  process.exitCode = 1;
} finally {
  await pool.end();
}
