/**
 * GET /metrics in embedded mode, scraped and parsed with a Prometheus text-format parser: HTTP
 * requests by operation and status, open sockets, audio received, final and acknowledgment latency,
 * the inference pool's queue, process metrics.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { scrapeMetrics } from "../helpers/metrics.ts";
import { startTestService, type TestService } from "../helpers/server.ts";
import { chunks, createSession, RawClient, spellingSamples, toPcm16 } from "../pipeline/helpers.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
});

describe("metrics, embedded mode", () => {
  test("a scrape parses and counts requests, sockets, audio, latencies, the queue and the process", async () => {
    const before = await scrapeMetrics(svc.running.url);
    expect(before.contentType).toStartWith("text/plain");
    const listed = (await fetch(`${svc.running.url}/v2/live`, { headers: { "x-service-key": svc.key } })).status;
    const refused = (await fetch(`${svc.running.url}/v2/live`)).status;
    expect([listed, refused]).toEqual([200, 401]);

    const pcm = toPcm16(spellingSamples(["a", "b"]));
    const session = await createSession(svc, {
      model: "trantoria-1",
      language_config: { languages: ["en"] },
      messages_config: { receive_acknowledgments: true },
    });
    const client = new RawClient(session.url);
    await client.opened;
    const during = await scrapeMetrics(svc.running.url);
    expect(during.value("stt_websocket_connections_open") - before.value("stt_websocket_connections_open")).toBe(1);
    expect(during.value("stt_live_sessions")).toBeGreaterThanOrEqual(1);
    for (const frame of chunks(pcm, 3200)) client.send(frame);
    client.stop();
    const closed = await client.closed;
    expect(closed.code).toBe(1000);
    const finals = client.finals().length;
    const acks = client.messages.filter((m) => m.type === "audio_chunk").length;
    expect(finals).toBe(2);
    expect(acks).toBeGreaterThan(0);

    const after = await scrapeMetrics(svc.running.url);
    const delta = (name: string, labels?: Record<string, string>) => after.value(name, labels) - before.value(name, labels);
    expect(delta("stt_http_requests_total", { operation: "listLiveSessions", status: "200" })).toBe(1);
    expect(delta("stt_http_requests_total", { operation: "listLiveSessions", status: "401" })).toBe(1);
    expect(delta("stt_http_requests_total", { operation: "createLiveSession", status: "201" })).toBe(1);
    expect(after.families.get("stt_http_request_duration_seconds")?.type).toBe("HISTOGRAM");
    expect(after.value("stt_websocket_connections_open")).toBe(before.value("stt_websocket_connections_open"));
    expect(delta("stt_audio_received_seconds_total")).toBeCloseTo(pcm.length / 32000, 3);
    expect(after.histogramCount("stt_final_latency_seconds") - before.histogramCount("stt_final_latency_seconds")).toBe(finals);
    expect(after.histogramCount("stt_ack_latency_seconds") - before.histogramCount("stt_ack_latency_seconds")).toBe(acks);
    const gateway = { gateway: svc.running.deps.directory.gatewayId, model: "all" };
    expect(after.families.get("stt_inference_queue_depth")?.metrics.some((m) => m.labels?.gateway === gateway.gateway)).toBe(true);
    expect(after.value("stt_inference_queue_depth", gateway)).toBe(0);
    expect(after.value("stt_inference_oldest_job_age_seconds", gateway)).toBe(0);
    expect(after.value("process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(after.value("process_resident_memory_bytes")).toBeGreaterThan(0);
  }, 60_000);
});
