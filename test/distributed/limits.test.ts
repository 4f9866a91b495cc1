/**
 * Poison jobs and admission: a job no worker can run is dead-lettered after the delivery limit and
 * its call rejects with a clear error (nothing loops); a burst beyond the live workers' slots plus
 * the queue bound is refused with NoCapacityError at once while admitted jobs complete.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "redis";
import { RedisCoordinator } from "../../workers/coordinator/redis.ts";
import { NoCapacityError } from "../../workers/contract/types.ts";
import { InferenceFailedError } from "../../workers/distributed/errors.ts";
import { startRedis, uniquePrefix, type TestRedis } from "./redis.ts";
import { CLIPS, eventually, MODELS_DIR, spawnWorker, words, type WorkerProcess } from "./workers.ts";

let redis: TestRedis;
let probe: ReturnType<typeof createClient>;
const workers: WorkerProcess[] = [];
const gateways: RedisCoordinator[] = [];
let brokenModels: string;

beforeAll(async () => {
  redis = await startRedis();
  probe = createClient({ url: redis.url, RESP: 2 });
  await probe.connect();
  // A models directory whose recognizer file is corrupt: the worker advertises trantoria-1 but
  // every attempt to load the engine fails.
  brokenModels = mkdtempSync(join(tmpdir(), "stt-broken-models-"));
  symlinkSync(join(MODELS_DIR, "whisper-assets"), join(brokenModels, "whisper-assets"));
  const tiny = join(brokenModels, "whisper-tiny.en");
  mkdirSync(tiny);
  for (const f of readdirSync(join(MODELS_DIR, "whisper-tiny.en"))) {
    if (f.endsWith(".onnx")) writeFileSync(join(tiny, f), "this is not an onnx model");
    else symlinkSync(join(MODELS_DIR, "whisper-tiny.en", f), join(tiny, f));
  }
}, 90_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  probe?.destroy();
  await Promise.all(workers.map((w) => w.kill("SIGKILL")));
  await redis?.stop();
  if (brokenModels) rmSync(brokenModels, { recursive: true, force: true });
});

const job = (sessionId: string, utteranceId: string, audio: Float32Array) => ({
  sessionId,
  utteranceId,
  seq: 1,
  model: "trantoria-1" as const,
  request: { audio, partial: false, languages: ["en"] },
});

describe("poison jobs", () => {
  test("a job the engine always fails on is dead-lettered after 3 deliveries and the call rejects", async () => {
    const prefix = uniquePrefix("poison");
    const broken = await spawnWorker({ redisUrl: redis.url, prefix, id: "broken", modelsDir: brokenModels });
    workers.push(broken);
    const gateway = await RedisCoordinator.create({ url: redis.url, prefix, registryRefreshMs: 100 });
    gateways.push(gateway);

    const failure = await gateway.transcribe(job("s-poison", "0:0", CLIPS[0].audio)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(InferenceFailedError);
    expect((failure as Error).message).toMatch(/after 3 attempt\(s\), job dead-lettered/);
    expect((failure as Error).message).toMatch(/onnx|protobuf|model/i);

    const deadLetters = (await probe.xRange(`${prefix}:deadletter`, "-", "+")) ?? [];
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0].message.attempts).toBe("3");
    expect(deadLetters[0].message.source).toBe(`${prefix}:jobs:trantoria-1`);
    expect((await gateway.metrics()).deadLettered).toBe(1);

    // Nothing loops: the job left the stream and no further attempt happens.
    expect(await probe.xLen(`${prefix}:jobs:trantoria-1`)).toBe(0);
    const attempts = () => (broken.output().match(/"msg":"job failed"/g) ?? []).length;
    expect(attempts()).toBe(3);
    await Bun.sleep(1500);
    expect(attempts()).toBe(3);
    await broken.kill("SIGKILL");
  }, 90_000);

  test("a malformed job entry is dead-lettered at once without retries", async () => {
    const prefix = uniquePrefix("malformed");
    const worker = await spawnWorker({ redisUrl: redis.url, prefix, id: "reader" });
    workers.push(worker);
    await probe.xAdd(`${prefix}:jobs:trantoria-1`, "*", { meta: "{not json", audio: "abc" });
    await eventually(async () => (await probe.xLen(`${prefix}:deadletter`)) === 1, 5000, "the malformed job to be dead-lettered");
    const [entry] = (await probe.xRange(`${prefix}:deadletter`, "-", "+")) ?? [];
    expect(entry.message.reason).toMatch(/malformed job: job meta is not JSON/);
    expect(await probe.xLen(`${prefix}:jobs:trantoria-1`)).toBe(0);
    await worker.kill("SIGTERM");
  }, 90_000);
});

describe("admission", () => {
  test("one worker of concurrency 1 and a queue bound of 1: a burst gets quick NoCapacityErrors, the rest complete", async () => {
    const prefix = uniquePrefix("admission");
    const slow = await spawnWorker({ redisUrl: redis.url, prefix, id: "slow", concurrency: 1, env: { WORKER_JOB_DELAY_MS: "300" } });
    workers.push(slow);
    const gateway = await RedisCoordinator.create({ url: redis.url, prefix, queueLimit: 1, registryRefreshMs: 100 });
    gateways.push(gateway);
    await gateway.capabilities(); // registry loaded before the burst

    const order: string[] = [];
    const burst = Array.from({ length: 8 }, (_, i) => {
      const clip = CLIPS[i % CLIPS.length];
      return gateway.transcribe(job("s-burst", `0:${i}`, clip.audio)).then(
        (r) => (order.push("done"), { ok: true as const, text: r.text, expected: clip.token }),
        (e: unknown) => (order.push("refused"), { ok: false as const, error: e }),
      );
    });
    const settled = await Promise.all(burst);
    const refused = settled.filter((s) => !s.ok);
    const completed = settled.filter((s) => s.ok);
    // limit = 1 slot + 1 queued: exactly two are admitted from a simultaneous burst
    expect(completed).toHaveLength(2);
    expect(refused).toHaveLength(6);
    for (const r of refused) expect((r as { error: unknown }).error).toBeInstanceOf(NoCapacityError);
    for (const c of completed) expect(words((c as { text: string }).text)).toBe((c as { expected: string }).expected);
    // refusals come back at once, before any admitted job (each held 300 ms by the worker) completes
    expect(order.slice(0, 6)).toEqual(Array(6).fill("refused"));

    // The worker acknowledges a job just after answering it, so the queue drains a moment after the last result.
    await eventually(async () => (await gateway.metrics()).models[0]?.depth === 0, 5_000, "the queue to drain");
    const m = await gateway.metrics();
    expect(m.pendingCalls).toBe(0);
    expect(m.models[0]).toMatchObject({ model: "trantoria-1", depth: 0, capacity: 1, workers: 1 });
  }, 90_000);

  test("while a job runs, metrics show it in flight with its age", async () => {
    const prefix = uniquePrefix("inflight");
    const slow = await spawnWorker({ redisUrl: redis.url, prefix, id: "slow2", concurrency: 1, env: { WORKER_JOB_DELAY_MS: "1500" } });
    workers.push(slow);
    const gateway = await RedisCoordinator.create({ url: redis.url, prefix, queueLimit: 4, registryRefreshMs: 100 });
    gateways.push(gateway);
    const calls = [0, 1].map((i) => gateway.transcribe(job("s-inflight", `0:${i}`, CLIPS[i].audio)));
    await eventually(async () => (await gateway.metrics()).models[0]?.inFlight === 1, 5000, "a job in flight");
    await Bun.sleep(300);
    const m = await gateway.metrics();
    expect(m.pendingCalls).toBe(2);
    expect(m.models[0]).toMatchObject({ depth: 2, inFlight: 1, waiting: 1 });
    expect(m.models[0].oldestAgeMs).toBeGreaterThanOrEqual(300);
    expect((await Promise.all(calls)).map((r) => words(r.text))).toEqual(["a", "b"]);
  }, 90_000);
});
