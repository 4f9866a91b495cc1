/** Queue metrics of distributed mode (exported by server/metrics as Prometheus gauges and counters). */

export interface ModelQueueMetrics {
  model: string;
  /** Jobs in the model's stream: waiting plus running (done jobs are deleted). */
  depth: number;
  /** Jobs not yet taken by any worker. */
  waiting: number;
  /** Jobs taken by a worker and not yet acknowledged. */
  inFlight: number;
  /** Age of the oldest job still in the stream (0 when empty), by Redis' clock. */
  oldestAgeMs: number;
  /** Live workers serving the model. */
  workers: number;
  /** Their summed concurrency. */
  capacity: number;
  /** Their free slots at their last heartbeat. */
  free: number;
}

export interface CoordinatorMetrics {
  gatewayId: string;
  /** Live workers in the registry. */
  workers: number;
  /** Calls of this gateway waiting for a result. */
  pendingCalls: number;
  /** Jobs dead-lettered since Redis started (all gateways). */
  deadLettered: number;
  /** Jobs this gateway re-sent after Redis lost them. */
  resent: number;
  /** Results this gateway ignored because the job was already answered. */
  duplicateResults: number;
  /** Jobs this gateway could not queue because the model's queue was full (callers may retry). */
  refused: number;
  models: ModelQueueMetrics[];
}
