export type {
  ClaimDeliveriesInput,
  ClaimedDelivery,
  ClaimShares,
  ClaimObserver,
  ClaimFollowUp,
  DeadLetterPage,
  DeliveryKey,
  DeliveryRecord,
  DeliveryStatus,
  ListDeadLettersInput,
  MarkDeliveredInput,
  MarkFailedInput,
  OutboxStore,
  PushTarget,
} from './outbox-store.ts';
export { deliveryIdOf } from './outbox-store.ts';
export { PostgresOutboxStore, type PostgresOutboxStoreOptions } from './postgres-outbox-store.ts';
