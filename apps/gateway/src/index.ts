export { createGateway, type Gateway, type GatewayDeps } from './create-gateway.ts';
export { DEV_ADMIN_TOKEN, loadGatewayConfig, type GatewayConfig } from './config.ts';
export { seedDemo, type SeedDemoOptions, type SeedDemoResult } from './seed-demo.ts';
