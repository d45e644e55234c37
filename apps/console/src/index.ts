export { createConsole, type Console, type ConsoleDeps } from './create-console.ts';
export { DEV_ADMIN_TOKEN, loadConsoleConfig, type ConsoleConfig } from './config.ts';
