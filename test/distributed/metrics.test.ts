/**
 * GET /metrics in distributed mode (a gateway on a private redis-server, one real worker process),
 * scraped and parsed with a Prometheus text-format parser: the same HTTP, socket, audio and latency
 * metrics as embedded mode, plus the Redis queue per model as collectors.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { scrapeMetrics } from "../helpers/metrics.ts";
import { startTestService, type TestService } from "../helpers/server.ts";
import { chunks, createSession, RawClient, spellingSamples, toPcm16 } from "../pipeline/helpers.ts";
import { startRedis, uniquePrefix, type TestRedis } from "./redis.ts";
import { spawnWorker, type WorkerProcess } from "./workers.ts";

const prefix = uniquePrefix("metrics");
let redis: TestRedis;
let worker: WorkerProcess;
let svc: TestService;

beforeAll(async () => {
  redis = await startRedis();
  worker = await spawnWorker({ redisUrl: redis.url, prefix, id: "w-metrics", concurrency: 2 });
  svc = await startTestService({ env: { REDIS_URL: redis.url, REDIS_PREFIX: prefix, GATEWAY_ID: "gw-metrics" } });
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  await worker?.kill("SIGKILL");
  await redis?.stop();
});

describe("metrics, distributed mode", () => {
  test("a scrape parses: requests, sockets, audio, latencies, the Redis queue per model, the process", async () => {
    const before = await scrapeMetrics(svc.running.url);
    const pcm = toPcm16(spellingSamples(["zero", "a"]));
    const session = await createSession(svc, { model: "trantoria-1", language_config: { languages: ["en"] }, messages_config: { receive_acknowledgments: true } });
    const client = new RawClient(session.url);
    await client.opened;
    for (const frame of chunks(pcm, 6400)) client.send(frame);
    client.stop();
    expect((await client.closed).code).toBe(1000);
    const finals = client.finals().length;
    const acks = client.messages.filter((m) => m.type === "audio_chunk").length;
    expect(finals).toBe(2);

    const after = await scrapeMetrics(svc.running.url);
    expect(after.value("stt_http_requests_total", { operation: "createLiveSession", status: "201" }) - before.value("stt_http_requests_total", { operation: "createLiveSession", status: "201" })).toBe(1);
    expect(after.value("stt_audio_received_seconds_total") - before.value("stt_audio_received_seconds_total")).toBeCloseTo(pcm.length / 32000, 3);
    expect(after.histogramCount("stt_final_latency_seconds") - before.histogramCount("stt_final_latency_seconds")).toBe(finals);
    expect(after.histogramCount("stt_ack_latency_seconds") - before.histogramCount("stt_ack_latency_seconds")).toBe(acks);
    expect(after.value("stt_websocket_connections_open")).toBe(before.value("stt_websocket_connections_open"));

    const model = { gateway: "gw-metrics", model: "trantoria-1" };
    expect(after.value("stt_inference_workers", { gateway: "gw-metrics" })).toBe(1);
    expect(after.value("stt_inference_capacity_slots", model)).toBe(2);
    expect(after.value("stt_inference_queue_depth", model)).toBeGreaterThanOrEqual(0);
    expect(after.families.get("stt_inference_oldest_job_age_seconds")?.metrics.some((m) => m.labels?.model === "trantoria-1")).toBe(true);
    expect(after.families.get("stt_inference_dead_lettered_total")?.type).toBe("COUNTER");
    expect(after.value("stt_live_sessions", { gateway: "gw-metrics" })).toBe(0);
    expect(after.value("process_resident_memory_bytes")).toBeGreaterThan(0);
  }, 60_000);
});
