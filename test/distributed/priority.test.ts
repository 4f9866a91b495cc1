/**
 * A busy worker takes the most urgent job waiting, not the oldest: a final queued after partials
 * and a background decode runs before them, and partials before the background decode. One worker
 * with one slot holding each job 300 ms, real Redis, whisper-tiny.en. Admission counts a job's own
 * tier and the more urgent ones: partials filling the queue do not get a final refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisCoordinator } from "../../workers/coordinator/redis.ts";
import { NoCapacityError, type DecodePriority, type InferenceJob } from "../../workers/contract/types.ts";
import { startRedis, uniquePrefix, type TestRedis } from "./redis.ts";
import { CLIPS, eventually, spawnWorker, words, type WorkerProcess } from "./workers.ts";

const prefix = uniquePrefix("priority");
let redis: TestRedis;
let worker: WorkerProcess;
let gateway: RedisCoordinator;

const job = (name: string, priority: DecodePriority): InferenceJob => ({
  sessionId: "s-priority",
  utteranceId: `0:${name}`,
  seq: 1,
  model: "trantoria-1",
  request: { audio: CLIPS[2]!.audio, partial: priority === "partial", languages: ["en"] },
  priority,
});

beforeAll(async () => {
  redis = await startRedis();
  worker = await spawnWorker({ redisUrl: redis.url, prefix, id: "one-slot", concurrency: 1, env: { WORKER_JOB_DELAY_MS: "300" } });
  gateway = await RedisCoordinator.create({ url: redis.url, prefix, gatewayId: "gw-priority", registryRefreshMs: 100, jobTimeoutMs: 60_000 });
  // Loads the engine.
  expect(words((await gateway.transcribe(job("warm", "final"))).text)).toBe(CLIPS[2]!.token);
}, 60_000);

afterAll(async () => {
  await gateway?.close().catch(() => {});
  await worker?.kill("SIGKILL");
  await redis?.stop();
});

/** Runs named jobs on `coordinator`, noting the order in which they complete. */
function recorder(coordinator: RedisCoordinator) {
  const order: string[] = [];
  const run = (name: string, priority: DecodePriority) =>
    coordinator.transcribe(job(name, priority)).then((r) => {
      order.push(name);
      return r;
    });
  return { order, run };
}

describe("job priority across the Redis job streams", () => {
  test("a final queued last runs first; partials before a background decode", async () => {
    const { order, run } = recorder(gateway);
    const busy = run("running", "final");
    await eventually(async () => (await gateway.metrics()).models[0]?.inFlight === 1, 10_000, "the worker to take the first job");
    const later = [run("partial-1", "partial"), run("partial-2", "partial"), run("background", "background")];
    await eventually(async () => (await gateway.metrics()).models[0]?.waiting === 3, 10_000, "three jobs to wait");
    const final = run("final", "final");
    await eventually(async () => (await gateway.metrics()).models[0]?.waiting === 4, 10_000, "the final to wait");
    const results = await Promise.all([busy, ...later, final]);
    expect(order).toEqual(["running", "final", "partial-1", "partial-2", "background"]);
    for (const r of results) expect(words(r.text)).toBe(CLIPS[2]!.token);
    // Every stream is empty once its jobs are done.
    expect((await gateway.metrics()).models[0]?.depth).toBe(0);
  }, 60_000);

  test("partials filling the queue bound do not get a final refused; another partial or a background decode is", async () => {
    // One slot and a queue bound of one: two jobs of a tier, with the more urgent ones, fill it.
    const tight = await RedisCoordinator.create({ url: redis.url, prefix, gatewayId: "gw-tight", registryRefreshMs: 100, jobTimeoutMs: 60_000, queueLimit: 1 });
    try {
      await tight.capabilities();
      const { order, run } = recorder(tight);
      const running = run("partial-1", "partial");
      await eventually(async () => (await tight.metrics()).models[0]?.inFlight === 1, 10_000, "the worker to take the first partial");
      const waiting = run("partial-2", "partial");
      await eventually(async () => (await tight.metrics()).models[0]?.waiting === 1, 10_000, "the second partial to wait");
      for (const [name, priority] of [["partial-3", "partial"], ["background", "background"]] as const) {
        expect(await run(name, priority).catch((e: unknown) => e)).toBeInstanceOf(NoCapacityError);
      }
      const final = run("final", "final");
      const results = await Promise.all([running, waiting, final]);
      expect(order).toEqual(["partial-1", "final", "partial-2"]);
      for (const r of results) expect(words(r.text)).toBe(CLIPS[2]!.token);
    } finally {
      await tight.close();
    }
  }, 60_000);
});
