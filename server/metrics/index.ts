/**
 * The service's Prometheus metrics (prom-client), one registry per process, served at `GET /metrics`
 * in both modes. The code that serves requests calls the small hooks below at the point where the
 * event happens; everything else (names, labels, buckets, the inference snapshots) lives here.
 *
 *   stt_http_requests_total{operation,status}        requests per contract operation and status
 *   stt_http_request_duration_seconds{operation}     their duration
 *   stt_websocket_connections_open                    sockets open on /v2/live
 *   stt_live_sessions{gateway}                        live sessions held by the gateway
 *   stt_audio_received_seconds_total                  seconds of session audio received (after resume de-duplication)
 *   stt_final_latency_seconds                         last audio byte of an utterance received → its final transcript sent
 *   stt_ack_latency_seconds                           last byte of an acknowledged range received → its acknowledgment sent
 *   stt_inference_*                                   queue depth, waiting, in flight, oldest job age (lag) per model;
 *                                                     workers, capacity and counters of the Redis queue (distributed)
 *   stt_capacity_*                                    admission (embedded, with a limit): the limit, the load of the
 *                                                     sessions admitted and one stream's cost per model, the load
 *                                                     ratio, sessions refused for capacity
 *   process_*, nodejs_*                               prom-client's default process metrics
 */
import { createRequire } from "node:module";
import type * as Prom from "prom-client";
import type { CoordinatorMetrics, ModelQueueMetrics } from "../../workers/public.ts";
import type { CapacitySnapshot } from "../capacity/admission.ts";

/**
 * prom-client's classes, each from its own file: the package's index also loads the Pushgateway
 * (and with it node:http, node:https and node:zlib), the summary and the default metrics, which
 * made it the largest import of the service's start-up (bench/README.md, "Start-up").
 */
const load = createRequire(import.meta.url);
const Registry = load("prom-client/lib/registry") as typeof Prom.Registry;
const Counter = load("prom-client/lib/counter") as typeof Prom.Counter;
const Gauge = load("prom-client/lib/gauge") as typeof Prom.Gauge;
const Histogram = load("prom-client/lib/histogram") as typeof Prom.Histogram;

export const registry = new Registry();
/**
 * The event-loop lag histogram (`nodejs_eventloop_lag_*`) samples with a timer. prom-client's
 * default of 10 ms woke the event loop 100 times a second, idle or not: 6 ms of CPU per second in an
 * idle process (1 ms without the sampler), and at 2 real-time streams the main thread's wake-ups per
 * audio-second went 64 → 22 and its CPU 10.4–11.8 → 9.2–9.4 ms without it (bench/README.md). Every
 * 100 ms costs 1.3 ms per second and still gives the lag of every sample it takes (a lone stall
 * shorter than 100 ms is seen in proportion to its length).
 */
const EVENT_LOOP_SAMPLE_MS = 100;
let defaultMetrics = false;
/**
 * prom-client's default process metrics (`process_*`, `nodejs_*`), registered at the first scrape:
 * their module takes 27–34 ms to load, which the service's first answer no longer waits for. The
 * process's CPU, memory, handles and start time are read at each scrape, so nothing is lost; the
 * event-loop lag and garbage-collection histograms count from the first scrape on.
 */
function withDefaultMetrics(): void {
  if (defaultMetrics) return;
  defaultMetrics = true;
  const collect = load("prom-client/lib/defaultMetrics") as typeof Prom.collectDefaultMetrics;
  collect({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
}

const registers = [registry];
const LATENCY_BUCKETS = [0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30];

const httpRequests = new Counter({
  name: "stt_http_requests_total",
  help: "HTTP requests per contract operation and response status.",
  labelNames: ["operation", "status"] as const,
  registers,
});
const httpDuration = new Histogram({
  name: "stt_http_request_duration_seconds",
  help: "Duration of HTTP requests per contract operation.",
  labelNames: ["operation"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers,
});
const socketsOpen = new Gauge({ name: "stt_websocket_connections_open", help: "WebSocket connections open on /v2/live.", registers });
const audioSeconds = new Counter({ name: "stt_audio_received_seconds_total", help: "Seconds of session audio received (audio resent on resume counted once).", registers });
const finalLatency = new Histogram({
  name: "stt_final_latency_seconds",
  help: "From the arrival of the last audio byte of an utterance to the sending of its final transcript.",
  buckets: LATENCY_BUCKETS,
  registers,
});
const ackLatency = new Histogram({
  name: "stt_ack_latency_seconds",
  help: "From the arrival of the last byte of an acknowledged range to the sending of its acknowledgment.",
  buckets: LATENCY_BUCKETS,
  registers,
});

// ── hooks ───────────────────────────────────────────────────────────────────

/** One HTTP request of a contract operation answered. */
export function httpRequestServed(operation: string, status: number, seconds: number): void {
  httpRequests.inc({ operation, status: String(status) });
  httpDuration.observe({ operation }, seconds);
}

export function socketOpened(): void {
  socketsOpen.inc();
}

export function socketClosed(): void {
  socketsOpen.dec();
}

/** Arrival times of session audio, per session object: ranges [from, until] of session seconds. */
interface Arrivals {
  from: number[];
  until: number[];
  at: number[];
}
const arrivals = new WeakMap<object, Arrivals>();
const MAX_ARRIVALS = 4096;

/** Fresh session audio covering session time `fromS`..`untilS` (seconds) has just arrived. */
export function audioArrived(session: object, fromS: number, untilS: number): void {
  if (!(untilS > fromS)) return;
  audioSeconds.inc(untilS - fromS);
  let a = arrivals.get(session);
  if (!a) arrivals.set(session, (a = { from: [], until: [], at: [] }));
  a.from.push(fromS);
  a.until.push(untilS);
  a.at.push(performance.now());
  if (a.at.length > MAX_ARRIVALS) {
    const drop = MAX_ARRIVALS / 4;
    a.from.splice(0, drop);
    a.until.splice(0, drop);
    a.at.splice(0, drop);
  }
}

/** When the audio at session time `t` arrived in this process (ms, performance clock), or null. */
function arrivalOf(session: object, t: number): number | null {
  const a = arrivals.get(session);
  if (!a || a.until.length === 0) return null;
  let lo = 0;
  let hi = a.until.length - 1;
  if (a.until[hi]! < t - 1e-6) return null;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a.until[mid]! < t - 1e-6) lo = mid + 1;
    else hi = mid;
  }
  return a.from[lo]! <= t + 1e-6 ? a.at[lo]! : null;
}

interface SentMessage {
  type: string;
  data?: unknown;
}

/** A session message was produced: finals and acknowledgments feed the latency histograms. */
export function messageSent(session: object, message: SentMessage): void {
  let t: number | undefined;
  let histogram: Prom.Histogram;
  if (message.type === "transcript") {
    const data = message.data as { is_final?: boolean; utterance?: { end?: number } };
    if (!data.is_final) return;
    t = data.utterance?.end;
    histogram = finalLatency;
  } else if (message.type === "audio_chunk") {
    const range = (message.data as { time_range?: [number, number] } | null)?.time_range;
    t = range ? range[1] / 1000 : undefined;
    histogram = ackLatency;
  } else {
    return;
  }
  if (typeof t !== "number") return;
  const at = arrivalOf(session, t);
  if (at !== null) histogram.observe(Math.max(0, performance.now() - at) / 1000);
}

// ── gateways and inference: collectors read at scrape time ─────────────────

type PoolLoad = { running: number; queued: number; oldestQueuedMs: number };

/** The coordinator's readings at one scrape: the Redis queue snapshot (distributed) or the pool load (embedded). */
export interface InferenceSnapshot {
  redis: CoordinatorMetrics | null;
  pool: PoolLoad | null;
}

/** What a running server lends to the scrape: its live sessions and its coordinator's readings (from the composition root). */
export interface MetricsSource {
  gatewayId: string;
  activeSessions(): number;
  inference(): Promise<InferenceSnapshot>;
  /** Admission's readings; null or absent when no limit applies. */
  capacity?(): Promise<CapacitySnapshot | null>;
}

/** One source read once per scrape. */
interface SourceSnapshot extends InferenceSnapshot {
  gateway: string;
  sessions: number;
  capacity: CapacitySnapshot | null;
}

const sources = new Set<MetricsSource>();

/** Registers a running server's gateway and coordinator; returns the function that removes them. */
export function attachSource(source: MetricsSource): () => void {
  sources.add(source);
  scrapeSnapshot = null;
  return () => {
    sources.delete(source);
    scrapeSnapshot = null;
  };
}

async function read(source: MetricsSource): Promise<SourceSnapshot> {
  const { redis, pool } = await source.inference().catch((): InferenceSnapshot => ({ redis: null, pool: null }));
  const capacity = source.capacity ? await source.capacity().catch(() => null) : null;
  return { gateway: source.gatewayId, sessions: source.activeSessions(), redis, pool, capacity };
}

/** The sources' snapshots, read once for all the collectors of one scrape. */
let scrapeSnapshot: { at: number; value: Promise<SourceSnapshot[]> } | null = null;
function snapshots(): Promise<SourceSnapshot[]> {
  const now = performance.now();
  if (!scrapeSnapshot || now - scrapeSnapshot.at > 250) scrapeSnapshot = { at: now, value: Promise.all([...sources].map(read)) };
  return scrapeSnapshot.value;
}

type Sample = [labels: Record<string, string>, value: number];

/** A gauge (or counter of absolute totals) whose samples are computed from the snapshots at each scrape. */
function collected(kind: "gauge" | "counter", name: string, help: string, labelNames: string[], samples: (s: SourceSnapshot) => Sample[]): void {
  async function collect(this: Prom.Gauge | Prom.Counter) {
    this.reset();
    for (const snapshot of await snapshots()) {
      for (const [labels, value] of samples(snapshot)) {
        if (this instanceof Gauge) this.set(labels, value);
        else this.inc(labels, value);
      }
    }
  }
  if (kind === "gauge") new Gauge({ name, help, labelNames, registers, collect });
  else new Counter({ name, help, labelNames, registers, collect });
}

const perGateway = (pick: (m: CoordinatorMetrics) => number) => (s: SourceSnapshot): Sample[] => (s.redis ? [[{ gateway: s.gateway }, pick(s.redis)]] : []);
/** Per model in distributed mode; `model="all"` for the embedded pool when `pool` gives a value. */
const perModel =
  (pick: (q: ModelQueueMetrics) => number, pool?: (p: PoolLoad) => number) =>
  (s: SourceSnapshot): Sample[] => {
    if (s.redis) return s.redis.models.map((q) => [{ gateway: s.gateway, model: q.model }, pick(q)]);
    return s.pool && pool ? [[{ gateway: s.gateway, model: "all" }, pool(s.pool)]] : [];
  };
const byModel = ["gateway", "model"];

collected("gauge", "stt_live_sessions", "Live sessions held by the gateway.", ["gateway"], (s) => [[{ gateway: s.gateway }, s.sessions]]);
collected("gauge", "stt_inference_queue_depth", "Inference jobs queued or running per model (model=\"all\" for the embedded pool).", byModel, perModel((q) => q.depth, (p) => p.running + p.queued));
collected("gauge", "stt_inference_queue_waiting", "Inference jobs not yet taken by a worker per model.", byModel, perModel((q) => q.waiting, (p) => p.queued));
collected("gauge", "stt_inference_in_flight", "Inference jobs running per model.", byModel, perModel((q) => q.inFlight, (p) => p.running));
collected("gauge", "stt_inference_oldest_job_age_seconds", "The queue's lag: age of the oldest waiting (embedded) or queued-or-running (distributed) job per model.", byModel, perModel((q) => q.oldestAgeMs / 1000, (p) => p.oldestQueuedMs / 1000));
collected("gauge", "stt_inference_model_workers", "Live workers serving the model (distributed).", byModel, perModel((q) => q.workers));
collected("gauge", "stt_inference_capacity_slots", "Concurrent jobs the live workers of the model can run (distributed).", byModel, perModel((q) => q.capacity));
collected("gauge", "stt_inference_free_slots", "Free slots of the model's workers at their last heartbeat (distributed).", byModel, perModel((q) => q.free));
collected("gauge", "stt_inference_workers", "Live inference workers in the registry (distributed).", ["gateway"], perGateway((m) => m.workers));
collected("gauge", "stt_inference_pending_calls", "Transcriptions this gateway is waiting for (distributed).", ["gateway"], perGateway((m) => m.pendingCalls));
collected("counter", "stt_inference_dead_lettered_total", "Jobs moved to the dead-letter stream (distributed, all gateways).", ["gateway"], perGateway((m) => m.deadLettered));
collected("counter", "stt_inference_resent_total", "Jobs re-sent after Redis lost them (distributed).", ["gateway"], perGateway((m) => m.resent));
collected("counter", "stt_inference_duplicate_results_total", "Duplicate results ignored (distributed).", ["gateway"], perGateway((m) => m.duplicateResults));
collected("counter", "stt_inference_refused_total", "Jobs refused because the model's queue was full (distributed).", ["gateway"], perGateway((m) => m.refused));

const perCapacityModel = (pick: (m: CapacitySnapshot["models"][number]) => number) => (s: SourceSnapshot): Sample[] =>
  s.capacity ? s.capacity.models.map((m) => [{ gateway: s.gateway, model: m.model }, pick(m)]) : [];
const totalLoad = (c: CapacitySnapshot) => c.models.reduce((sum, m) => sum + m.load, 0);
collected("gauge", "stt_capacity_limit_engine_seconds", "Engine-seconds per second the sessions admitted may need together (engine threads × CAPACITY_HEADROOM).", ["gateway"], (s) => (s.capacity ? [[{ gateway: s.gateway }, s.capacity.limit]] : []));
collected("gauge", "stt_capacity_load_engine_seconds", "Estimated engine-seconds per second the sessions admitted of the model need (sessions × stream cost).", byModel, perCapacityModel((m) => m.load));
collected("gauge", "stt_capacity_sessions", "Sessions admitted of the model that count against the limit (held, or created and not yet connected).", byModel, perCapacityModel((m) => m.sessions));
collected("gauge", "stt_capacity_stream_cost", "Estimated engine-seconds one real-time stream of the model costs per second of audio.", byModel, perCapacityModel((m) => m.streamCost));
collected("gauge", "stt_capacity_load_ratio", "Estimated load of the sessions admitted over the limit (1 = full).", ["gateway"], (s) => (s.capacity && s.capacity.limit > 0 ? [[{ gateway: s.gateway }, totalLoad(s.capacity) / s.capacity.limit]] : []));
collected("counter", "stt_sessions_refused_capacity_total", "Sessions refused at POST /v2/live for capacity: reason=saturated (503) or no_room (500, one stream exceeds the limit).", ["gateway", "reason"], (s) =>
  s.capacity ? (Object.entries(s.capacity.refused) as [string, number][]).map(([reason, n]) => [{ gateway: s.gateway, reason }, n]) : [],
);

/** The Prometheus text exposition of every metric (the collectors read the sources now). */
export async function scrape(): Promise<{ body: string; contentType: string }> {
  withDefaultMetrics();
  scrapeSnapshot = null;
  return { body: await registry.metrics(), contentType: registry.contentType };
}
