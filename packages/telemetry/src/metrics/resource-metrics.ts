import { Gauge } from 'prom-client';
import type { FamilyContext } from './family-context.ts';
import { METRIC_NAMES } from './metric-names.ts';

/** The counters `pg.Pool` keeps; any pool with the same shape works. */
export interface PoolLike {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export interface ResourceMetrics {
  /** Reports the pool's connections as `switchyard_pg_pool_connections{state=total|idle|waiting}`. */
  observePgPool(pool: PoolLike): void;
  /**
   * Reports `switchyard_redis_up` (1/0) from `check`, called at each scrape: a cheap status read
   * such as `() => redis.status === 'ready'`, or a PING. A throw counts as down.
   */
  observeRedis(check: () => Promise<boolean> | boolean): void;
}

export function resourceMetrics({ registry }: FamilyContext): ResourceMetrics {
  let pool: PoolLike | undefined;
  let redis: (() => Promise<boolean> | boolean) | undefined;
  return {
    observePgPool(p) {
      const first = pool === undefined;
      pool = p;
      if (!first) return;
      new Gauge({
        name: METRIC_NAMES.pgPoolConnections,
        help: 'Postgres pool connections of this process: total open, idle, and callers waiting for one.',
        labelNames: ['state'],
        registers: [registry],
        collect() {
          if (!pool) return;
          this.set({ state: 'total' }, pool.totalCount);
          this.set({ state: 'idle' }, pool.idleCount);
          this.set({ state: 'waiting' }, pool.waitingCount);
        },
      });
    },
    observeRedis(check) {
      const first = redis === undefined;
      redis = check;
      if (!first) return;
      new Gauge({
        name: METRIC_NAMES.redisUp,
        help: '1 when this process reaches Redis, else 0.',
        registers: [registry],
        async collect() {
          // Down is an answer here, not a failed collection.
          const up = await Promise.resolve()
            .then(() => redis?.())
            .catch(() => false);
          this.set(up === true ? 1 : 0);
        },
      });
    },
  };
}
