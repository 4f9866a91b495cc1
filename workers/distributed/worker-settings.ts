/**
 * The settings of a distributed-mode inference worker (`worker.ts`): the options it is started
 * with, and their defaults.
 */
import { resolve } from "node:path";
import type { Logger } from "../../common/log.ts";

export interface InferenceWorkerOptions {
  url: string;
  modelsDir: string;
  /** Stable name of this worker (default: host-pid-random). */
  workerId?: string;
  /** Jobs run at once, one engine thread each (default 1). */
  concurrency?: number;
  /** Redis key prefix (default `stt`). */
  prefix?: string;
  /** Registry heartbeat period (default 1000 ms). */
  heartbeatMs?: number;
  /** Advertisement lifetime without heartbeat (default 4000 ms). */
  ttlMs?: number;
  /** Idle time after which another worker takes a pending job over (default 15000 ms). */
  claimIdleMs?: number;
  /** How often idle jobs are looked for (default claimIdleMs / 3, at most 1000 ms). */
  claimIntervalMs?: number;
  /** Deliveries after which a job is dead-lettered instead of run again (default 3). */
  maxDeliveries?: number;
  /** After a failed attempt, the job becomes claimable again this much later (default 1000 ms, at most claimIdleMs). */
  retryDelayMs?: number;
  /** XREADGROUP block time (default 1000 ms). */
  blockMs?: number;
  /** onnxruntime intra-op threads per engine (default 1). */
  sessionThreads?: number;
  /** Recent results kept to answer re-deliveries (default 512). */
  resultCacheSize?: number;
  /** Fault injection for drills and tests: wait this long after taking each job (default 0). */
  jobDelayMs?: number;
  /** How long a result waits for Redis to come back before it is dropped (default 30000 ms). */
  outageWaitMs?: number;
  log?: Logger;
}

/** The options with their defaults filled in (and checked). */
export interface WorkerSettings {
  readonly modelsDir: string;
  readonly concurrency: number;
  readonly heartbeatMs: number;
  readonly ttlMs: number;
  readonly claimIdleMs: number;
  readonly claimIntervalMs: number;
  readonly maxDeliveries: number;
  readonly retryDelayMs: number;
  readonly blockMs: number;
  readonly sessionThreads: number;
  readonly jobDelayMs: number;
  readonly outageWaitMs: number;
}

export function workerSettings(opts: InferenceWorkerOptions): WorkerSettings {
  const modelsDir = resolve(opts.modelsDir);
  const concurrency = positive(opts.concurrency, 1, "concurrency");
  const heartbeatMs = positive(opts.heartbeatMs, 1000, "heartbeatMs");
  const ttlMs = positive(opts.ttlMs, 4000, "ttlMs");
  const claimIdleMs = positive(opts.claimIdleMs, 15_000, "claimIdleMs");
  const claimIntervalMs = positive(opts.claimIntervalMs, Math.min(1000, Math.max(50, Math.round(claimIdleMs / 3))), "claimIntervalMs");
  const maxDeliveries = positive(opts.maxDeliveries, 3, "maxDeliveries");
  const retryDelayMs = Math.min(claimIdleMs, Math.max(0, opts.retryDelayMs ?? 1000));
  const blockMs = positive(opts.blockMs, 1000, "blockMs");
  const sessionThreads = positive(opts.sessionThreads, 1, "sessionThreads");
  const jobDelayMs = Math.max(0, opts.jobDelayMs ?? 0);
  const outageWaitMs = positive(opts.outageWaitMs, 30_000, "outageWaitMs");
  return { modelsDir, concurrency, heartbeatMs, ttlMs, claimIdleMs, claimIntervalMs, maxDeliveries, retryDelayMs, blockMs, sessionThreads, jobDelayMs, outageWaitMs };
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined || Number.isNaN(value)) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return value;
}
