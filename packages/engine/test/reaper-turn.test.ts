import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@switchyard/telemetry';
import { waitFor } from '@switchyard/testing';
import { HintPublisher } from '@switchyard/events';
import { TaskQueue } from '@switchyard/queue';
import { claimReaperTurn, Reaper, TaskWriter } from '../src/index.ts';
import { startPlatform, type Platform } from './platform-fixture.ts';

// Idle workers must not poll Postgres (issue 8 target: 100 idle workers, Postgres CPU under 5%):
// the reaper sweeps only on the cluster-wide turn it claims in Redis.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
});
afterAll(() => p.close());

describe('the reaper turn', () => {
  it('goes to exactly one of many workers at once, and to another once it lapses', async () => {
    const redis = p.redis.connect();
    const key = p.keys.reaperTurn;
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => claimReaperTurn(redis, key, `w${i}`, 300)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    await waitFor(() => claimReaperTurn(redis, key, 'late', 300), { what: 'the turn to lapse' });
  });

  it('a reaper without the turn does not sweep; with it, it does', async () => {
    class CountingReaper extends Reaper {
      sweeps = 0;
      override sweep() {
        this.sweeps++;
        return super.sweep();
      }
    }
    let asked = 0;
    const redis = p.redis.connect();
    const writer = new TaskWriter({
      store: p.store,
      hints: new HintPublisher({ redis, keys: p.keys }),
      log: silentLogger(),
    });
    const queue = new TaskQueue({ connection: redis, keys: p.keys });
    const deps = (mine: boolean) => ({
      store: p.store,
      writer,
      dispatcher: queue,
      config: { ...p.config, reaperIntervalMs: 50 },
      log: silentLogger(),
      takeTurn: () => {
        asked++;
        return Promise.resolve(mine);
      },
    });
    const idle = new CountingReaper(deps(false));
    idle.start();
    await waitFor(() => asked >= 5, { what: 'several turns asked' });
    await idle.stop();
    expect(idle.sweeps).toBe(0);
    const busy = new CountingReaper(deps(true));
    busy.start();
    await waitFor(() => busy.sweeps >= 2, { what: 'sweeps on its turns' });
    await busy.stop();
    await queue.close();
  });

  // Found in review: when Redis could not give the turn, every worker swept every interval (a
  // fleet of fifty, some 25 scans of Postgres a second, just when Redis is away and re-dispatches
  // fail anyway). Each now sweeps only every few intervals then.
  it('sweeps only every few intervals while Redis cannot say whose turn it is', async () => {
    let asked = 0;
    class CountingReaper extends Reaper {
      sweeps = 0;
      override sweep() {
        this.sweeps++;
        return super.sweep();
      }
    }
    const redis = p.redis.connect();
    const queue = new TaskQueue({ connection: redis, keys: p.keys });
    const reaper = new CountingReaper({
      store: p.store,
      writer: new TaskWriter({
        store: p.store,
        hints: new HintPublisher({ redis, keys: p.keys }),
        log: silentLogger(),
      }),
      dispatcher: queue,
      config: { ...p.config, reaperIntervalMs: 50 },
      log: silentLogger(),
      takeTurn: () => {
        asked++;
        return Promise.reject(new Error('Redis is away'));
      },
    });
    const started = performance.now();
    reaper.start();
    await waitFor(() => asked >= 30, { what: 'many turns asked' });
    await reaper.stop();
    // At most one sweep per five intervals (250 ms) of the time it ran, whatever the machine's load
    // made of the ticks; every tick would sweep without the spacing.
    const elapsed = performance.now() - started;
    expect(reaper.sweeps).toBeGreaterThanOrEqual(1);
    expect(reaper.sweeps).toBeLessThanOrEqual(Math.floor(elapsed / 250) + 1);
    await queue.close();
  });
});
