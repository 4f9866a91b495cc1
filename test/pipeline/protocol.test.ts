import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestService } from "../helpers/server.ts";
import { chunks, contractErrors, createSession, finalTexts, RawClient, spellingSamples, startPipelineService, toPcm16 } from "./helpers.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startPipelineService();
});
afterAll(() => svc.stop());

const init = { model: "trantoria-1", language_config: { languages: ["en"] } };
const store = () => svc.running.deps.store;

async function connect(body: Record<string, unknown> = init, key?: string) {
  const s = await createSession(svc, body, key);
  const client = new RawClient(s.url);
  await client.opened;
  return { ...s, client };
}

describe("malformed frames", () => {
  test("each gets an error message; the session goes on and ends normally", async () => {
    const { client } = await connect();
    const pcm = toPcm16(spellingSamples(["b"]));
    const bad = [
      "not json",
      JSON.stringify({ type: "dance" }),
      JSON.stringify({ type: "audio_chunk", data: { chunk: "AAAA" }, extra: 1 }),
      JSON.stringify({ type: "audio_chunk", data: { chunk: "@@not base64@@" } }),
      JSON.stringify({ type: "audio_chunk" }),
      JSON.stringify(null),
      new Uint8Array(1024 * 1024 + 10),
    ];
    for (const f of bad) client.send(f);
    for (const c of chunks(pcm, 3200)) client.send(c);
    client.stop();
    await client.waitFor((m) => m.type === "post_final_transcript");
    client.stop(); // a second stop: error, no crash
    const close = await client.closed;
    expect(close.code).toBe(1000);
    const errors = client.messages.filter((m) => m.type === "error");
    expect(errors.length).toBeGreaterThanOrEqual(bad.length);
    for (const m of client.messages) expect(contractErrors(m)).toEqual([]);
    expect(finalTexts(client.messages)).toEqual(["b"]);
  });

  test("audio after stop_recording is answered with an error", async () => {
    const { client } = await connect();
    client.send(new Uint8Array(3200));
    client.stop();
    client.send(new Uint8Array(3200));
    await client.closed;
    const errs = client.messages.filter((m) => m.type === "error").map((m) => JSON.stringify(m.error));
    expect(errs.some((e) => e.includes("after stop_recording"))).toBe(true);
  });

  test("errors are not sent when receive_errors is false", async () => {
    const { client } = await connect({ ...init, messages_config: { receive_errors: false } });
    client.send("{");
    client.stop();
    await client.closed;
    expect(client.types()).not.toContain("error");
  });
});

describe("close codes", () => {
  test("4401 for an unknown token, and for an ended session", async () => {
    const port = svc.running.port;
    const unknown = new RawClient(`ws://127.0.0.1:${port}/v2/live?token=nope`);
    expect((await unknown.closed).code).toBe(4401);
    const { url, client } = await connect();
    client.stop();
    expect((await client.closed).code).toBe(1000);
    const again = new RawClient(url);
    expect((await again.closed).code).toBe(4401);
  });

  test("4401 once the URL expired unused (60 s, injectable clock)", async () => {
    const s = await createSession(svc, init);
    svc.clock.advance(60_001);
    const client = new RawClient(s.url);
    expect((await client.closed).code).toBe(4401);
    expect((await store().getSessionById(s.id))!.status).toBe("error");
  });

  test("1011 rejected: for an option the model refuses (translation target not served)", async () => {
    const s = await createSession(svc, init);
    // The init was accepted; the options the session runs with ask for a translation the model does not serve.
    const rec = (await store().getSessionById(s.id))!;
    await store().updateSession(s.id, { appliedOptions: { ...rec.appliedOptions, realtime_processing: { translation: true, translation_config: { target_languages: ["de"] } } } });
    const client = new RawClient(s.url);
    const close = await client.closed;
    expect(close.code).toBe(1011);
    expect(close.reason.startsWith("rejected:")).toBe(true);
    expect((await store().getSessionById(s.id))!.status).toBe("error");
  });

  test("429 on the socket past the account's concurrent-session limit", async () => {
    const { accountId, key } = await svc.account({ plan: { maxConcurrentSessions: 2 } });
    const a = await createSession(svc, init, key);
    await createSession(svc, init, key);
    await store().updatePlan(accountId, { maxConcurrentSessions: 1 });
    const res = await fetch(a.url.replace(/^ws/, "http"), { headers: { upgrade: "websocket", connection: "upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" } });
    expect(res.status).toBe(429);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.statusCode).toBe(429);
    expect(String(body.request_id)).toMatch(/^G-[0-9a-f]{8}$/);
  });
});

describe("time windows (injectable clock)", () => {
  test("60 s without audio stops the session like stop_recording", async () => {
    const { id, client } = await connect({ ...init, messages_config: { receive_lifecycle_events: true } });
    client.send(new Uint8Array(3200));
    await Bun.sleep(50);
    svc.clock.advance(60_000);
    const close = await client.closed;
    expect(close.code).toBe(1000);
    expect(client.types()).toContain("end_session");
    expect((await store().getSessionById(id))!.status).toBe("done");
  });

  test("reaching the plan's maximum duration acts as stop_recording", async () => {
    const { key } = await svc.account({ plan: { maxSessionDurationS: 2 } });
    const { client } = await connect(init, key);
    for (const c of chunks(toPcm16(spellingSamples(["a", "b"])), 3200)) client.send(c);
    const close = await client.closed;
    expect(close.code).toBe(1000);
    const end = client.messages.find((m) => m.type === "stop_recording")!;
    expect(end.data.recording_duration).toBeGreaterThanOrEqual(2);
    expect(end.data.recording_duration).toBeLessThan(2.5);
  });

  test("a dropped connection resumes within 60 s; after the window the session ends", async () => {
    const { id, url, client } = await connect();
    client.send(new Uint8Array(3200));
    client.ws.close();
    await client.closed;
    svc.clock.advance(59_000);
    await Bun.sleep(1100);
    const back = new RawClient(url);
    await back.opened;
    await Bun.sleep(100);
    expect(back.ws.readyState).toBe(WebSocket.OPEN);
    back.ws.close();
    await back.closed;
    svc.clock.advance(60_001);
    // The next host tick (every second of the wall clock) ends it; a busy runner may take longer.
    const deadline = performance.now() + 10_000;
    while ((await store().getSessionById(id))!.status !== "done" && performance.now() < deadline) await Bun.sleep(100);
    expect((await store().getSessionById(id))!.status).toBe("done");
    const late = new RawClient(url);
    expect((await late.closed).code).toBe(4401);
  });
});
