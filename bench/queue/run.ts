/**
 * Queue overhead benchmark: latency of one transcription (sequential calls, p50/p95) and
 * throughput of a burst, in embedded mode (InProcessCoordinator) and in distributed mode
 * (RedisCoordinator + worker processes on a private redis-server), on short word clips served by
 * whisper-tiny.en (trantoria-1; `MODELS_DIR` or ./models, see test/helpers/models.ts).
 * Usage: `bun bench/queue/run.ts [calls] [workers]` (defaults 20, 2: each call encodes a 30 s window).
 */
import { InProcessCoordinator } from "../../workers/coordinator/in-process.ts";
import { RedisCoordinator } from "../../workers/coordinator/redis.ts";
import type { InferenceCoordinator } from "../../workers/contract/types.ts";
import { startRedis, uniquePrefix } from "../../test/distributed/redis.ts";
import { CLIPS, MODELS_DIR, spawnWorker } from "../../test/distributed/workers.ts";

const CALLS = Number(process.argv[2] ?? 20);
const WORKERS = Number(process.argv[3] ?? 2);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(name: string, coordinator: InferenceCoordinator): Promise<void> {
  const job = (i: number, tag: string) => ({
    sessionId: `bench-${tag}`,
    utteranceId: `0:${i}`,
    seq: 1,
    model: "trantoria-1" as const,
    request: { audio: CLIPS[i % CLIPS.length].audio, partial: false },
  });
  for (let i = 0; i < 10; i++) await coordinator.transcribe(job(i, "warm"));
  const latencies: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await coordinator.transcribe(job(i, "seq"));
    latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CALLS }, (_, i) => coordinator.transcribe(job(i, "burst"))));
  const burstMs = performance.now() - t0;
  console.log(
    `${name.padEnd(28)} p50 ${percentile(latencies, 50).toFixed(2)} ms  p95 ${percentile(latencies, 95).toFixed(2)} ms  burst of ${CALLS}: ${(CALLS / (burstMs / 1000)).toFixed(0)} jobs/s`,
  );
}

const embedded = await InProcessCoordinator.create({ modelsDir: MODELS_DIR, threads: WORKERS, queueLimit: CALLS });
await measure(`embedded (${WORKERS} threads)`, embedded);
await embedded.close();

const redis = await startRedis();
const prefix = uniquePrefix("bench");
const workers = await Promise.all(Array.from({ length: WORKERS }, (_, i) => spawnWorker({ redisUrl: redis.url, prefix, id: `bench-${i}` })));
const gateway = await RedisCoordinator.create({ url: redis.url, prefix, queueLimit: CALLS });
try {
  await measure(`redis (${WORKERS} workers × 1)`, gateway);
} finally {
  await gateway.close();
  await Promise.all(workers.map((w) => w.kill("SIGTERM")));
  await redis.stop();
}
