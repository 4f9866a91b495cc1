/**
 * `bun run worker`: a distributed-mode inference worker process.
 *
 * Environment:
 *   REDIS_URL            Redis to take jobs from (required), e.g. redis://redis:6379
 *   MODELS_DIR           installed models (default ./models)
 *   WORKER_CONCURRENCY   jobs run at once, one engine thread each (default 1)
 *   WORKER_ID            stable worker name (default host-pid-random)
 *   REDIS_PREFIX         key prefix shared with the gateways (default stt)
 *   WORKER_HEARTBEAT_MS, WORKER_TTL_MS, WORKER_CLAIM_IDLE_MS, WORKER_CLAIM_INTERVAL_MS,
 *   WORKER_MAX_DELIVERIES, WORKER_RETRY_DELAY_MS, WORKER_BLOCK_MS, WORKER_SESSION_THREADS, WORKER_JOB_DELAY_MS
 *                        tuning; see InferenceWorkerOptions
 *   WORKER_SHUTDOWN_MS   longest SIGTERM/SIGINT drain before the process exits anyway (default 15000)
 * SIGTERM / SIGINT stop taking jobs, finish running ones and deregister; if that cannot finish in
 * WORKER_SHUTDOWN_MS (Redis unreachable, a job stuck) the process exits with status 1. A second
 * signal exits at once.
 */
import { InferenceWorker, type InferenceWorkerOptions } from "./distributed/worker.ts";
import { createLogger, isLogLevel } from "../common/log.ts";

/** JSON lines from LOG_LEVEL (`info` when unset, under `bun test` too) to stdout, warnings and errors to stderr. */
const envLevel = process.env.LOG_LEVEL;
const log = createLogger({}, { level: isLogLevel(envLevel) ? envLevel : "info", errorsToStderr: true });

function numberFromEnv(env: Record<string, string | undefined>, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return value;
}

/** Worker options from the environment; throws a readable error on bad values. */
export function optionsFromEnv(env: Record<string, string | undefined> = process.env): InferenceWorkerOptions {
  const num = (name: string) => numberFromEnv(env, name);
  if (!env.REDIS_URL) throw new Error("REDIS_URL is required (e.g. redis://localhost:6379)");
  return {
    url: env.REDIS_URL,
    modelsDir: env.MODELS_DIR || "./models",
    workerId: env.WORKER_ID || undefined,
    prefix: env.REDIS_PREFIX || undefined,
    concurrency: num("WORKER_CONCURRENCY"),
    heartbeatMs: num("WORKER_HEARTBEAT_MS"),
    ttlMs: num("WORKER_TTL_MS"),
    claimIdleMs: num("WORKER_CLAIM_IDLE_MS"),
    claimIntervalMs: num("WORKER_CLAIM_INTERVAL_MS"),
    maxDeliveries: num("WORKER_MAX_DELIVERIES"),
    retryDelayMs: num("WORKER_RETRY_DELAY_MS"),
    blockMs: num("WORKER_BLOCK_MS"),
    sessionThreads: num("WORKER_SESSION_THREADS"),
    jobDelayMs: num("WORKER_JOB_DELAY_MS"),
    log,
  };
}

if (import.meta.main) {
  // Signals are handled from the start: one that arrives while the worker starts stops it once started.
  let worker: InferenceWorker | null = null;
  let signalled: string | null = null;
  let stopping = false;
  let shutdownMs = 15_000;
  const shutdown = async (signal: string) => {
    if (stopping) {
      log.warn("worker stopped by a second signal", { worker: worker?.id, signal });
      process.exit(1);
    }
    if (!worker) {
      signalled = signal;
      setTimeout(() => process.exit(1), shutdownMs).unref();
      return;
    }
    stopping = true;
    log.info("worker stopping", { worker: worker.id, signal, within_ms: shutdownMs });
    setTimeout(() => {
      log.warn("worker drain did not finish in time; exiting", { worker: worker?.id, within_ms: shutdownMs });
      process.exit(1);
    }, shutdownMs).unref();
    // Running jobs get most of the time; deregistering and closing get the rest.
    await worker.stop(Math.max(0, shutdownMs - 1_000));
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  try {
    shutdownMs = numberFromEnv(process.env, "WORKER_SHUTDOWN_MS") ?? 15_000;
    worker = await InferenceWorker.start(optionsFromEnv());
  } catch (err) {
    log.error("worker failed to start", { error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  }
  if (signalled) void shutdown(signalled);
}
