import type { NewPushConfig } from './transport.ts';

/**
 * Whether a create may be retried: only one that names its config id, so that a retry after a
 * lost reply updates that config. Without an id the server mints one per request, and a server
 * that does not de-duplicate by URL would register the webhook once per attempt. (A2AClient gives
 * every create an id; this guards a transport used directly.)
 */
export function isIdempotentCreate(config: NewPushConfig): boolean {
  return typeof config.id === 'string' && config.id !== '';
}
