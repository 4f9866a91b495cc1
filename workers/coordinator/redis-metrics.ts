/** Queue metrics of distributed mode and their Prometheus text rendering. */

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

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** Renders metrics in the Prometheus text exposition format (version 0.0.4). */
export function renderPrometheus(m: CoordinatorMetrics, namespace = "stt"): string {
  const lines: string[] = [];
  const gateway = `gateway="${escapeLabel(m.gatewayId)}"`;
  const scalar = (name: string, type: "gauge" | "counter", help: string, value: number) => {
    lines.push(`# HELP ${namespace}_${name} ${help}`, `# TYPE ${namespace}_${name} ${type}`, `${namespace}_${name}{${gateway}} ${value}`);
  };
  const perModel = (name: string, help: string, pick: (q: ModelQueueMetrics) => number) => {
    lines.push(`# HELP ${namespace}_${name} ${help}`, `# TYPE ${namespace}_${name} gauge`);
    for (const q of m.models) lines.push(`${namespace}_${name}{${gateway},model="${escapeLabel(q.model)}"} ${pick(q)}`);
  };
  scalar("inference_workers", "gauge", "Live inference workers in the registry.", m.workers);
  scalar("inference_pending_calls", "gauge", "Transcriptions this gateway is waiting for.", m.pendingCalls);
  scalar("inference_dead_lettered_total", "counter", "Jobs moved to the dead-letter stream.", m.deadLettered);
  scalar("inference_resent_total", "counter", "Jobs re-sent after Redis lost them.", m.resent);
  scalar("inference_duplicate_results_total", "counter", "Duplicate results ignored.", m.duplicateResults);
  scalar("inference_refused_total", "counter", "Jobs refused because the model's queue was full.", m.refused);
  perModel("inference_queue_depth", "Jobs queued or running per model.", (q) => q.depth);
  perModel("inference_queue_waiting", "Jobs not yet taken by a worker per model.", (q) => q.waiting);
  perModel("inference_in_flight", "Jobs running on workers per model.", (q) => q.inFlight);
  perModel("inference_oldest_job_age_seconds", "Age of the oldest queued or running job per model.", (q) => q.oldestAgeMs / 1000);
  perModel("inference_model_workers", "Live workers serving the model.", (q) => q.workers);
  perModel("inference_capacity_slots", "Concurrent jobs the live workers of the model can run.", (q) => q.capacity);
  perModel("inference_free_slots", "Free slots of the model's workers at their last heartbeat.", (q) => q.free);
  return lines.join("\n") + "\n";
}
