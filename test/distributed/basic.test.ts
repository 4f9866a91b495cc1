/**
 * Distributed mode end to end: a gateway-side RedisCoordinator and two real worker processes on a
 * private redis-server, transcribing short real word clips with whisper-tiny.en.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisCoordinator } from "../../workers/coordinator/redis.ts";
import { attachSource, scrape } from "../../server/metrics/index.ts";
import { NoEndpointError } from "../../workers/contract/types.ts";
import { startRedis, uniquePrefix, type TestRedis } from "./redis.ts";
import { CLIPS, eventually, spawnWorker, words, type WorkerProcess } from "./workers.ts";

let redis: TestRedis;
let gateway: RedisCoordinator;
const workers: WorkerProcess[] = [];
const prefix = uniquePrefix("basic");
const answeredBy = new Map<string, number>();

beforeAll(async () => {
  redis = await startRedis();
  const [w1, w2] = await Promise.all([
    spawnWorker({ redisUrl: redis.url, prefix, id: "w1", concurrency: 2 }),
    spawnWorker({ redisUrl: redis.url, prefix, id: "w2", concurrency: 2 }),
  ]);
  workers.push(w1, w2);
  gateway = await RedisCoordinator.create({ url: redis.url, prefix, gatewayId: "gw-basic", registryRefreshMs: 100, queueLimit: 64, jobTimeoutMs: 150_000,
    onReply: (r) => answeredBy.set(r.worker, (answeredBy.get(r.worker) ?? 0) + 1),
  });
}, 90_000);

afterAll(async () => {
  if (process.env.DEBUG_WORKERS) for (const w of workers) console.log(w.id, w.output());
  await gateway?.close();
  await Promise.all(workers.map((w) => w.kill("SIGKILL")));
  await redis?.stop();
});

describe("distributed inference", () => {
  test("capabilities are the live workers' models", async () => {
    const caps = await gateway.capabilities();
    expect(caps.map((c) => c.model)).toEqual(["trantoria-1"]);
    expect(caps[0].engine).toBe("whisper-tiny.en");
    expect(caps[0].languages).toContain("en");
  }, 90_000);

  test("many concurrent jobs come back correct and are spread over both workers", async () => {
    const jobs = Array.from({ length: 8 }, (_, i) => CLIPS[i % CLIPS.length]);
    answeredBy.clear();
    const results = await Promise.all(
      jobs.map((clip, i) =>
        gateway.transcribe({ sessionId: "s-many", utteranceId: `0:${i}`, seq: 1, model: "trantoria-1", request: { audio: clip.audio, partial: false, languages: ["en"] } }),
      ),
    );
    expect(results.map((r) => words(r.text))).toEqual(jobs.map((c) => c.token));
    expect(answeredBy.get("w1") ?? 0).toBeGreaterThan(0);
    expect(answeredBy.get("w2") ?? 0).toBeGreaterThan(0);
    expect((answeredBy.get("w1") ?? 0) + (answeredBy.get("w2") ?? 0)).toBe(jobs.length);
  }, 180_000); // four engines load at once on the first jobs

  test("concurrent calls for one (session, utterance, seq) share a single job", async () => {
    const job = { sessionId: "s-dup", utteranceId: "0:0", seq: 3, model: "trantoria-1" as const, request: { audio: CLIPS[1].audio, partial: false } };
    const [a, b] = await Promise.all([gateway.transcribe(job), gateway.transcribe(job)]);
    expect(words(a.text)).toBe("b");
    expect(b).toBe(a);
  }, 90_000);

  test("a model no worker serves is refused with NoEndpointError", async () => {
    const job = { sessionId: "s-x", utteranceId: "0:0", seq: 1, model: "solaria-1" as const, request: { audio: CLIPS[0].audio, partial: false } };
    await expect(gateway.transcribe(job)).rejects.toBeInstanceOf(NoEndpointError);
    const lang = { ...job, model: "trantoria-1" as const, request: { ...job.request, languages: ["xx"] } };
    await expect(gateway.transcribe(lang)).rejects.toBeInstanceOf(NoEndpointError);
  }, 90_000);

  test("bad input is rejected with a clear error", async () => {
    const bad = { sessionId: "s", utteranceId: "0", seq: 1, model: "trantoria-1" as const, request: { audio: [1, 2] as unknown as Float32Array, partial: false } };
    await expect(gateway.transcribe(bad)).rejects.toThrow(/Float32Array/);
  }, 90_000);

  test("metrics show the workers and an empty queue; Prometheus text renders them", async () => {
    // a worker acknowledges just after answering: wait for the last acknowledgement
    await eventually(async () => (await gateway.metrics()).models[0]?.depth === 0, 5000, "the queue to empty");
    const m = await gateway.metrics();
    expect(m.workers).toBe(2);
    expect(m.pendingCalls).toBe(0);
    const q = m.models.find((x) => x.model === "trantoria-1")!;
    expect(q).toMatchObject({ depth: 0, waiting: 0, inFlight: 0, workers: 2, capacity: 4 });
    const detach = attachSource({ gatewayId: "gw-basic", activeSessions: () => 0, inference: async () => ({ redis: await gateway.metrics(), pool: null }) });
    const text = (await scrape()).body;
    detach();
    expect(text).toContain('stt_inference_queue_depth{gateway="gw-basic",model="trantoria-1"} 0');
    expect(text).toContain('stt_inference_capacity_slots{gateway="gw-basic",model="trantoria-1"} 4');
    expect(text).toContain("# TYPE stt_inference_dead_lettered_total counter");
  }, 90_000);
});

