import type { ParseArgsOptionsConfig } from 'node:util';

/** Every option of every command; each command lists the ones it takes (run-cli.ts refuses the rest). */
export const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
  'api-key': { type: 'string' },
  transport: { type: 'string' },
  header: { type: 'string', short: 'H', multiple: true },
  task: { type: 'string' },
  context: { type: 'string' },
  data: { type: 'string' },
  stream: { type: 'boolean' },
  timeout: { type: 'string' },
  history: { type: 'string' },
  state: { type: 'string' },
  'page-size': { type: 'string' },
  'page-token': { type: 'string' },
  all: { type: 'boolean' },
  token: { type: 'string' },
  'auth-scheme': { type: 'string' },
  'auth-credentials': { type: 'string' },
  id: { type: 'string' },
  server: { type: 'string' },
  'admin-token': { type: 'string' },
  name: { type: 'string' },
  executor: { type: 'string' },
  card: { type: 'string' },
  settings: { type: 'string' },
  principal: { type: 'string' },
  role: { type: 'string' },
  description: { type: 'string' },
  'expires-at': { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

export type OptionName = keyof typeof OPTIONS;

/** Parsed option values as parseArgs returns them. */
export type OptionValues = {
  [K in OptionName]?: (typeof OPTIONS)[K] extends { multiple: true }
    ? string[]
    : (typeof OPTIONS)[K]['type'] extends 'boolean'
      ? boolean
      : string;
};

/** Options every agent command takes. */
export const AGENT_OPTIONS: readonly OptionName[] = ['api-key', 'transport', 'header'];

/** Options every admin command takes. */
export const ADMIN_OPTIONS: readonly OptionName[] = ['server', 'admin-token'];
