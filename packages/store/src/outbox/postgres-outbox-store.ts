import { coalescedStatements } from '../coalesced-calls.ts';
import type { Db } from '../db.ts';
import type { SecretBox } from '../secret-box.ts';
import { claimDueDeliveries } from './claim-due-deliveries.ts';
import { countPendingDeliveries } from './count-pending-deliveries.ts';
import { listDeadLetters } from './list-dead-letters.ts';
import { listDeliveries } from './list-deliveries.ts';
import { markDelivered } from './mark-delivered.ts';
import { markFailed } from './mark-failed.ts';
import { measureOldestPendingAgeMs } from './measure-oldest-pending.ts';
import { releaseDeliveries } from './release-deliveries.ts';
import type {
  ClaimDeliveriesInput,
  ClaimedDelivery,
  DeadLetterPage,
  DeliveryKey,
  DeliveryRecord,
  ListDeadLettersInput,
  MarkDeliveredInput,
  MarkFailedInput,
  OutboxStore,
} from './outbox-store.ts';
import { replayAllDeadLetters } from './replay-all-dead-letters.ts';
import { replayDeadLetter } from './replay-dead-letter.ts';

/** Bounds one mark statement's arrays (a pusher has at most PUSHER_CONCURRENCY sends out). */
const MAX_MARK_BATCH = 200;

export interface PostgresOutboxStoreOptions {
  db: Db;
  /** Opens push tokens, webhook credentials and tenants' signing secrets. */
  secrets: SecretBox;
}

/** `OutboxStore` on Postgres: each method is one operation file. */
export class PostgresOutboxStore implements OutboxStore {
  readonly #db: Db;
  readonly #secrets: SecretBox;
  /** Marks of one tenant that arrive while one is in flight go together (coalescedStatements). */
  readonly #markDelivered: (input: MarkDeliveredInput) => Promise<boolean>;

  constructor({ db, secrets }: PostgresOutboxStoreOptions) {
    this.#db = db;
    this.#secrets = secrets;
    this.#markDelivered = coalescedStatements(
      (input) => input.tenantId,
      (inputs) => markDelivered(db, inputs),
      async (input) => (await markDelivered(db, [input]))[0]!,
      MAX_MARK_BATCH,
    );
  }

  claimDueDeliveries(input: ClaimDeliveriesInput): Promise<ClaimedDelivery[]> {
    return claimDueDeliveries(this.#db, this.#secrets, input);
  }
  releaseDeliveries(workerId: string, keys: readonly DeliveryKey[]): Promise<number> {
    return releaseDeliveries(this.#db, workerId, keys);
  }
  markDelivered(input: MarkDeliveredInput): Promise<boolean> {
    return this.#markDelivered(input);
  }
  markFailed(input: MarkFailedInput): Promise<boolean> {
    return markFailed(this.#db, input);
  }
  listDeadLetters(input: ListDeadLettersInput): Promise<DeadLetterPage> {
    return listDeadLetters(this.#db, input);
  }
  replayDeadLetter(key: DeliveryKey): Promise<boolean> {
    return replayDeadLetter(this.#db, key);
  }
  replayAllDeadLetters(tenantId: string): Promise<number> {
    return replayAllDeadLetters(this.#db, tenantId);
  }
  listDeliveries(tenantId: string, taskId: string): Promise<DeliveryRecord[]> {
    return listDeliveries(this.#db, tenantId, taskId);
  }
  countPending(): Promise<number> {
    return countPendingDeliveries(this.#db);
  }
  oldestPendingAgeMs(): Promise<number> {
    return measureOldestPendingAgeMs(this.#db);
  }
}
