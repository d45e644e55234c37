import { ConfigError } from '@switchyard/runtime';
import { DEFAULT_ENGINE_CONFIG } from '@switchyard/engine';
import { describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../src/config.ts';

describe('loadWorkerConfig', () => {
  it('fills the defaults the README documents', () => {
    expect(loadWorkerConfig({})).toMatchObject({
      RETRY_BASE_MS: 500,
      RETRY_MAX_MS: 30_000,
      REAPER_INTERVAL_MS: 2000,
      RETENTION_INTERVAL_MS: 3_600_000,
      TERMINAL_TASK_TTL_MS: 30 * 86_400_000,
      EVENT_TTL_MS: 86_400_000,
      IDEMPOTENCY_TTL_MS: 86_400_000,
      DELIVERED_PUSH_TTL_MS: 7 * 86_400_000,
      CONTEXT_MEMORY_TTL_MS: 30 * 86_400_000,
      TASK_MAX_ARTIFACT_BYTES: 16 * 1024 * 1024,
    });
  });

  it('takes a blank timeout for an unset one, not for 0 (no limit)', () => {
    const config = loadWorkerConfig({
      RUN_TIMEOUT_MS: ' ',
      SHUTDOWN_GRACE_MS: '',
      PG_STATEMENT_TIMEOUT_MS: '',
    });
    expect(config.RUN_TIMEOUT_MS).toBe(DEFAULT_ENGINE_CONFIG.runTimeoutMs);
    expect(config.SHUTDOWN_GRACE_MS).toBe(20_000);
    expect(config.PG_STATEMENT_TIMEOUT_MS).toBe(60_000);
  });

  it('refuses a retry ceiling below the first retry, as the pusher does', () => {
    expect(() => loadWorkerConfig({ RETRY_BASE_MS: '5000', RETRY_MAX_MS: '1000' })).toThrow(
      /RETRY_MAX_MS: must be at least RETRY_BASE_MS/,
    );
    expect(() => loadWorkerConfig({ RETRY_BASE_MS: '60000' })).toThrow(ConfigError);
    expect(loadWorkerConfig({ RETRY_BASE_MS: '1000', RETRY_MAX_MS: '1000' }).RETRY_MAX_MS).toBe(1000);
  });

  it('refuses a messageId horizon longer than its tasks live, which retention would refuse at its first run', () => {
    expect(() =>
      loadWorkerConfig({ IDEMPOTENCY_TTL_MS: '172800000', TERMINAL_TASK_TTL_MS: '86400000' }),
    ).toThrow(/IDEMPOTENCY_TTL_MS: must not exceed TERMINAL_TASK_TTL_MS/);
  });
});
