import type { HintPublisher, RevocationChannel } from '@switchyard/events';
import type { ParkedRuns, UrlPolicy } from '@switchyard/engine';
import type { PostgresAdminStore, PostgresOutboxStore, SecretBox } from '@switchyard/store';

export interface AdminDeps {
  admin: PostgresAdminStore;
  outbox: PostgresOutboxStore;
  /** Revoked credentials stop working on every gateway before the admin call answers. */
  revocations: Pick<RevocationChannel, 'announce'>;
  /** A tenant's parked runs, brought back when its run cap changes (TaskQueue.releaseParked). */
  parkedRuns: ParkedRuns;
  /** Wakes pushers after a replay. */
  hints: HintPublisher;
  bodyLimitBytes: number;
  /** Seals upstream agents' credentials. */
  secrets: SecretBox;
  /** SSRF rules for upstream agent URLs (the webhook rules). */
  urlPolicy: UrlPolicy;
}
