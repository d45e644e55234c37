export {
  createPusher,
  type Pusher,
  type PusherOptions,
  type PusherSettings,
  type PusherState,
} from './create-pusher.ts';
export { loadPusherConfig, pusherSettings, type PusherConfig } from './config.ts';
export type { DeliveryResult } from './deliver.ts';
export { retryDelayMs, type RetryPolicy } from './backoff.ts';
