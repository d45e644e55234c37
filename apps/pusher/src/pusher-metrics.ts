import type { OutboxStore } from '@switchyard/store';
import type { DeliveryResult } from './deliver.ts';

type Outcome = DeliveryResult['outcome'];

/**
 * A minimal Prometheus exposition until the telemetry package ships a meter: this process's
 * delivery outcomes, and the outbox depth and age, which are global (every pusher reports the same).
 */
export class PusherMetrics {
  readonly #outcomes: Record<Outcome, number> = { delivered: 0, retry: 0, dead: 0, abandoned: 0 };

  record(outcome: Outcome): void {
    this.#outcomes[outcome] += 1;
  }

  async render(outbox: OutboxStore, inFlight: number): Promise<string> {
    const [pending, ageMs] = await Promise.all([outbox.countPending(), outbox.oldestPendingAgeMs()]);
    const lines = [
      '# HELP switchyard_push_attempts_total Push delivery attempts by outcome, in this process.',
      '# TYPE switchyard_push_attempts_total counter',
      ...Object.entries(this.#outcomes).map(
        ([outcome, n]) => `switchyard_push_attempts_total{outcome="${outcome}"} ${n}`,
      ),
      '# HELP switchyard_push_in_flight Deliveries being sent by this process.',
      '# TYPE switchyard_push_in_flight gauge',
      `switchyard_push_in_flight ${inFlight}`,
      '# HELP switchyard_push_outbox_pending Pending deliveries in the outbox (all tenants).',
      '# TYPE switchyard_push_outbox_pending gauge',
      `switchyard_push_outbox_pending ${pending}`,
      '# HELP switchyard_push_outbox_oldest_age_seconds Age of the oldest pending delivery.',
      '# TYPE switchyard_push_outbox_oldest_age_seconds gauge',
      `switchyard_push_outbox_oldest_age_seconds ${ageMs / 1000}`,
    ];
    return `${lines.join('\n')}\n`;
  }
}
