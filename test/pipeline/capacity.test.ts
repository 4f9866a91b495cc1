/**
 * Capacity-aware admission on real weights (trantoria-1 = whisper-tiny.en, one engine thread).
 * CAPACITY_HEADROOM 0.6 with the catalogue's 0.25 engine-seconds per audio-second for tiny.en (no
 * refinement: `capacityRefineMs` 0) leaves room for two streams: a third `POST /v2/live` is refused
 * with 503 `no_capacity` and a `retry-after`, the two running sessions transcribe as a lone one does,
 * and once they end a new session is admitted again.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { check } from "../../generated/validators.ts";
import { scrapeMetrics } from "../helpers/metrics.ts";
import { startTestService, type TestService } from "../helpers/server.ts";
import { chunks, createSession, finalTexts, RawClient, speechSamples, toPcm16 } from "./helpers.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ env: { CAPACITY_HEADROOM: "0.6" }, config: { capacityRefineMs: 0 } });
});
afterAll(() => svc.stop());

const init = { model: "trantoria-1", language_config: { languages: ["en"] } };
const speech = toPcm16(speechSamples(["jfk.wav"]));

function post(): Promise<Response> {
  return fetch(`${svc.running.url}/v2/live`, { method: "POST", headers: { "content-type": "application/json", "x-service-key": svc.key }, body: JSON.stringify(init) });
}

/** Streams the speech through a created session; resolves with its final texts once it closes. */
async function transcribe(url: string): Promise<string[]> {
  const client = new RawClient(url);
  await client.opened;
  for (const c of chunks(speech, 3200)) client.send(c);
  client.stop();
  const close = await client.closed;
  expect(close.code).toBe(1000);
  return finalTexts(client.messages);
}

/** POST /v2/live until it is admitted (a session lets its place go once its host has let it go). */
async function admittedWithin(ms: number): Promise<Response> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await post();
    if (res.status !== 503 || Date.now() > deadline) return res;
    await Bun.sleep(100);
  }
}

describe("admission by capacity", () => {
  test("past capacity: 503 no_capacity with retry-after; the running sessions transcribe as alone; a session that ends frees its place", async () => {
    const alone = await transcribe((await createSession(svc, init)).url);
    expect(alone.join(" ")).toContain("ask not what your country can do for you");

    const a = await createSession(svc, init);
    const b = await createSession(svc, init);
    const refused = await post();
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const body = (await refused.json()) as { request_id: string };
    expect(check("ErrorResponse", body).ok).toBe(true);
    expect(body).toMatchObject({ statusCode: 503, path: "/v2/live", error: "no_capacity" });
    expect(refused.headers.get("x-request-id")).toBe(body.request_id);

    const metrics = await scrapeMetrics(svc.running.url);
    expect(metrics.value("stt_capacity_sessions", { model: "trantoria-1" })).toBe(2);
    expect(metrics.value("stt_capacity_limit_engine_seconds")).toBeCloseTo(0.6, 6);
    expect(metrics.value("stt_capacity_stream_cost", { model: "trantoria-1" })).toBeCloseTo(0.25, 6);
    expect(metrics.value("stt_sessions_refused_capacity_total", { reason: "saturated" })).toBeGreaterThanOrEqual(1);

    // Both stream at once; a session refused meanwhile does not slow them down.
    const running = Promise.all([transcribe(a.url), transcribe(b.url)]);
    expect((await post()).status).toBe(503);
    const [textA, textB] = await running;
    expect(textA).toEqual(alone);
    expect(textB).toEqual(alone);

    const again = await admittedWithin(10_000);
    expect(again.status).toBe(201);
  }, 180_000);

  test("a session created and never connected holds its place until its URL expires", async () => {
    // Leftover places of the test before: the sessions it created and never connected expire first.
    svc.clock.advance(61_000);
    await createSession(svc, init);
    await createSession(svc, init);
    expect((await post()).status).toBe(503);
    svc.clock.advance(61_000);
    expect((await post()).status).toBe(201);
  });
});
