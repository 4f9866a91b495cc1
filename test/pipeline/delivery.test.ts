import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { verifyCallbackSignature, SIGNATURE_HEADER } from "../../server/delivery/callbacks.ts";
import { validateCallbackMessage } from "../../generated/validators.ts";
import type { TestService } from "../helpers/server.ts";
import { chunks, createSession, finalTexts, interleave16, RawClient, spellingSamples, startPipelineService, toPcm16, words } from "./helpers.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startPipelineService();
});
afterAll(() => svc.stop());

const base = { model: "trantoria-1", language_config: { languages: ["en"] } };

async function run(body: Record<string, unknown>, pcm: Uint8Array) {
  const s = await createSession(svc, body);
  const client = new RawClient(s.url);
  await client.opened;
  for (const c of chunks(pcm, 3200)) client.send(c);
  client.stop();
  const close = await client.closed;
  return { ...s, client, close };
}

describe("callbacks", () => {
  test("selected messages are posted in order, signed with the account's secret, envelopes valid", async () => {
    const received: { event: string; payload: { type: string; data?: any }; valid: boolean }[] = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const body = await req.text();
        const env = JSON.parse(body);
        const rec = (await svc.running.deps.store.getSessionById(env.id))!;
        const secret = (await svc.running.deps.store.getAccount(rec.accountId))!.callbackSecret;
        received.push({ event: env.event, payload: env.payload, valid: verifyCallbackSignature(secret, req.headers.get(SIGNATURE_HEADER), body) && validateCallbackMessage(env) });
        return new Response("ok");
      },
    });
    try {
      const pcm = toPcm16(spellingSamples(["a", "b"]));
      const { id, client, close } = await run(
        { ...base, callback: true, callback_config: { url: `http://127.0.0.1:${receiver.port}/hook`, receive_speech_events: true } },
        pcm,
      );
      expect(close.code).toBe(1000);
      expect(finalTexts(client.messages)).toEqual(["a", "b"]);
      const deadline = Date.now() + 5000;
      while (!received.some((r) => r.event === "live.end_session") && Date.now() < deadline) await Bun.sleep(20);
      const events = received.map((r) => r.event);
      expect(events[0]).toBe("live.start_session");
      expect(events[1]).toBe("live.start_recording");
      expect(events.at(-1)).toBe("live.end_session");
      expect(events).toContain("live.speech_start");
      expect(events).not.toContain("live.audio_chunk"); // acknowledgments are off for callbacks by default
      expect(received.filter((r) => r.event === "live.transcript").map((r) => words(r.payload.data.utterance.text))).toEqual(["a", "b"]);
      const tail = events.filter((e) => ["live.end_recording", "live.post_transcript", "live.post_final_transcript", "live.end_session"].includes(e));
      expect(tail).toEqual(["live.end_recording", "live.post_transcript", "live.post_final_transcript", "live.end_session"]);
      expect(received.every((r) => r.valid)).toBe(true);
      for (const r of received) expect(r.payload.type).toBe(r.event.slice(5));
      for (const r of received) expect((r.payload as { session_id?: string }).session_id).toBe(id);
      // start_session is never sent on the socket
      expect(client.types()).not.toContain("start_session");
    } finally {
      receiver.stop(true);
    }
  });
});

describe("refused callback destinations", () => {
  test("a delivery refused after the session was accepted is reported once as an error message on the WebSocket", async () => {
    const other = await startPipelineService();
    const posts: string[] = [];
    const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (req) => (posts.push(await req.text()), new Response("ok")) });
    try {
      // Accepted at creation (loopback allowed), then the policy no longer lets the destination through,
      // as when a host name starts resolving to an internal address.
      const s = await createSession(other, { ...base, callback: true, callback_config: { url: `http://127.0.0.1:${receiver.port}/hook`, receive_speech_events: true } });
      other.running.deps.config.callbacksAllowLoopback = false;
      const client = new RawClient(s.url);
      await client.opened;
      const error = await client.waitFor((m) => m.type === "error");
      expect(error.error.code).toBe("callback_refused");
      expect(error.error.message).toContain("callback_config.url");
      expect(error.error.message).toContain("loopback");
      for (const c of chunks(toPcm16(spellingSamples(["a"])), 3200)) client.send(c);
      client.stop();
      expect((await client.closed).code).toBe(1000);
      expect(finalTexts(client.messages)).toEqual(["a"]);
      expect(client.messages.filter((m) => m.type === "error")).toHaveLength(1);
      expect(posts).toEqual([]);
    } finally {
      receiver.stop(true);
      await other.stop();
    }
  });
});

describe("recording", () => {
  test("the session's audio is written as FLAC that decodes back to the sent samples", async () => {
    const pcm = toPcm16(spellingSamples(["b"]));
    const { id } = await run(base, pcm);
    const rec = (await svc.running.deps.store.getSessionById(id))!;
    expect(rec.recordingPath).toBe(path.join(svc.dataDir, "recordings", `${id}.flac`));
    expect(rec.audioDurationS).toBeCloseTo(pcm.length / 32000, 2);
    const out = path.join(tmpdir(), `${id}.raw`);
    const p = Bun.spawnSync(["flac", "-d", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", out, rec.recordingPath!]);
    expect(p.exitCode).toBe(0);
    expect(Buffer.compare(readFileSync(out), Buffer.from(pcm))).toBe(0);
  });
});

describe("two channels", () => {
  test("different speech on each channel is transcribed with its channel", async () => {
    const left = toPcm16(spellingSamples(["a", "zero"], 1, 0.5));
    const right = toPcm16(spellingSamples(["b"], 1, 1.2));
    const pcm = interleave16([left, right]);
    const { client, close } = await run({ ...base, channels: 2 }, pcm);
    expect(close.code).toBe(1000);
    const finals = client.finals().map((m) => [m.data.utterance.channel, words(m.data.utterance.text)]);
    expect(finals.filter(([c]) => c === 0).map(([, t]) => t)).toEqual(["a", "zero"]);
    expect(finals.filter(([c]) => c === 1).map(([, t]) => t)).toEqual(["b"]);
    const post = client.messages.find((m) => m.type === "post_final_transcript")!;
    expect(post.data.metadata.number_of_distinct_channels).toBe(2);
    expect(post.data.metadata.audio_duration).toBeCloseTo(pcm.length / 4 / 16000, 2);
    const acks = client.messages.filter((m) => m.type === "audio_chunk");
    expect(acks.at(-1)!.data.byte_range[1]).toBe(pcm.length);
  });
});
