/** Every Switchyard metric family (issue 6), named once so apps and tests cannot misspell one. */
export const METRIC_NAMES = {
  requests: 'switchyard_requests_total',
  requestDuration: 'switchyard_request_duration_seconds',
  tasksCreated: 'switchyard_tasks_created_total',
  tasksFinished: 'switchyard_tasks_finished_total',
  queueDepth: 'switchyard_queue_depth',
  queueOldestAge: 'switchyard_queue_oldest_age_seconds',
  leaseExpiries: 'switchyard_lease_expiries_total',
  reaperActions: 'switchyard_reaper_actions_total',
  runsParked: 'switchyard_runs_parked_total',
  dispatchLatency: 'switchyard_dispatch_latency_seconds',
  sseConnections: 'switchyard_sse_connections',
  sseEvents: 'switchyard_sse_events_total',
  pushDeliveries: 'switchyard_push_deliveries_total',
  pushDeliveryDuration: 'switchyard_push_delivery_duration_seconds',
  pushPending: 'switchyard_push_pending',
  pushOldestPendingAge: 'switchyard_push_oldest_pending_age_seconds',
  pushInFlight: 'switchyard_push_in_flight',
  pgPoolConnections: 'switchyard_pg_pool_connections',
  redisUp: 'switchyard_redis_up',
  collectErrors: 'switchyard_metrics_collect_errors_total',
} as const;

/** Seconds. Requests span fast reads to blocking sends that wait up to BLOCKING_TIMEOUT_MS (30 s). */
export const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * Seconds. A run waits for a worker from milliseconds (idle fleet) to minutes (a backlog, a
 * tenant at its run cap, a disabled tenant enabled again).
 */
export const DISPATCH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** Seconds. A webhook POST is cut at PUSH_TIMEOUT_MS (default 10 s, at most 120 s). */
export const PUSH_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];
