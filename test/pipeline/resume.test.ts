import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GladiaClient } from "@gladiaio/sdk";
import type { TestService } from "../helpers/server.ts";
import { chunks, createSession, outcome, ResumingClient, spellingSamples, startPipelineService, tcpRelay, toPcm16, words, type Msg } from "./helpers.ts";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const TOKENS = ["a", "b", "zero"] as const;
const init = { model: "trantoria-1", language_config: { languages: ["en"] }, messages_config: { receive_acknowledgments: true } };
const pcm = toPcm16(spellingSamples([...TOKENS]));
const frames = chunks(pcm, 3200);

let svc: TestService;
let relay: ReturnType<typeof tcpRelay>;
let reference: ReturnType<typeof outcome>;

beforeAll(async () => {
  let port = 0;
  relay = tcpRelay(() => port);
  svc = await startPipelineService({ env: { PUBLIC_URL: `http://127.0.0.1:${relay.port}` } });
  port = svc.running.port;
  const s = await createSession(svc, init);
  const c = new ResumingClient(s.url);
  await c.connect();
  for (const f of frames) c.send(f);
  c.stop();
  await c.done;
  reference = outcome(c.messages);
}, 120_000);
afterAll(async () => {
  relay.stop();
  await svc.stop();
});

/** Waits until `cond` holds (polling), or fails after `ms`. */
async function until(cond: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await Bun.sleep(10);
  }
}

describe("resume", () => {
  test("reference run transcribes every token", () => {
    expect(reference.finals.map((f) => words(f[1]))).toEqual([...TOKENS]);
    expect(reference.duration).toBeCloseTo(pcm.length / 32000, 2);
  });

  test("official SDK (x-service-key header) through a TCP cut mid-stream: same result as uninterrupted", async () => {
    const client = new GladiaClient({ apiUrl: `http://127.0.0.1:${relay.port}`, httpHeaders: { "x-service-key": svc.key } });
    const session = client.liveV2().startSession({ ...init, encoding: "wav/pcm", sample_rate: 16000, bit_depth: 16, channels: 1 } as never);
    const messages: Msg[] = [];
    const connects: number[] = [];
    session.on("message", (m) => messages.push(m as Msg));
    session.on("connected", ({ attempt }) => connects.push(attempt));
    const ended = new Promise<{ code: number }>((r) => session.on("ended", (e) => r(e)));
    await until(() => connects.length > 0);
    const half = Math.floor(frames.length / 2);
    for (const f of frames.slice(0, half)) session.sendAudio(f);
    await until(() => messages.some((m) => m.type === "audio_chunk"));
    relay.cut();
    const quarter = half + Math.floor(frames.length / 4);
    for (const f of frames.slice(half, quarter)) session.sendAudio(f); // buffered or lost in the cut
    await until(() => connects.length >= 2);
    for (const f of frames.slice(quarter)) session.sendAudio(f);
    // (The SDK drops a stop_recording requested while it is reconnecting, so stop once connected.)
    session.stopRecording();
    const end = await Promise.race([ended, Bun.sleep(30_000).then(() => ({ code: -1 }))]);
    if (end.code === -1) console.error("SDK DEBUG", connects, messages.map((m) => m.type).join(","), session.status);
    expect(end.code).toBe(1000);
    expect(connects.length).toBeGreaterThanOrEqual(2);
    expect(outcome(messages)).toEqual(reference);
  }, 90_000);

  test("an acknowledgment lost in flight before a drop: no audio lost or duplicated", async () => {
    const s = await createSession(svc, init);
    const c = new ResumingClient(s.url);
    await c.connect();
    const third = Math.floor(frames.length / 3);
    for (const f of frames.slice(0, third)) c.send(f);
    await until(() => c.messages.some((m) => m.type === "audio_chunk"));
    c.loseAcks = 1_000; // every later ack is lost
    for (const f of frames.slice(third, 2 * third)) c.send(f);
    await Bun.sleep(150);
    await c.drop();
    c.loseAcks = 0;
    for (const f of frames.slice(2 * third)) c.send(f);
    await c.connect();
    c.stop();
    await c.done;
    expect(outcome(c.messages)).toEqual(reference);
  }, 120_000);

  test("restart: shutdown() mid-stream persists the session; a new process on the same DATA_DIR resumes it", async () => {
    const dataDir = svc.dataDir;
    const first = await startPipelineService({ dataDir, clock: svc.clock });
    const s = await createSession(first, init);
    const c = new ResumingClient(s.url);
    await c.connect();
    const half = Math.floor(frames.length / 2);
    for (const f of frames.slice(0, half)) c.send(f);
    await until(() => c.messages.some((m) => m.type === "audio_chunk"));
    await Bun.sleep(100);
    await first.stop();
    await until(() => c.closes.length > 0);
    expect(c.closes[0]).toBe(1012);
    const second = await startPipelineService({ dataDir, clock: svc.clock, env: { PORT: String(first.running.port) } });
    try {
      const stored = (await second.running.deps.store.getSessionById(s.id))!;
      expect(stored.resumeState).not.toBeNull();
      for (const f of frames.slice(half)) c.send(f);
      await c.connect();
      c.stop();
      await c.done;
      // Texts, order and duration are identical; the VAD restarts cold a little before the
      // untranscribed point, so utterance bounds after the restart may move by a few VAD windows.
      const got = outcome(c.messages);
      expect(got.finals.map((f) => words(f[1]))).toEqual([...TOKENS]);
      expect(got.duration).toBe(reference.duration);
      // (Whisper may case or punctuate an utterance whose bounds moved a little differently.)
      expect(words(got.result)).toBe(words(reference.result));
      got.finals.forEach((f, i) => {
        expect(Math.abs((f[2] as number) - (reference.finals[i]![2] as number))).toBeLessThan(0.25);
        expect(Math.abs((f[3] as number) - (reference.finals[i]![3] as number))).toBeLessThan(0.25);
      });
      const record = (await second.running.deps.store.getSessionById(s.id))!;
      expect(record.status).toBe("done");
      // The recording spans the restart: it decodes to exactly the bytes of an uninterrupted stream.
      expect(record.recordingPath).not.toBeNull();
      const raw = path.join(tmpdir(), `${s.id}.raw`);
      const decoded = Bun.spawnSync(["flac", "-d", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", raw, record.recordingPath!]);
      expect(decoded.exitCode).toBe(0);
      expect(Buffer.compare(readFileSync(raw), Buffer.from(pcm))).toBe(0);
      expect(existsSync(`${record.recordingPath}.spool`)).toBe(false);
    } finally {
      await second.stop();
    }
  }, 90_000);

  test("a session whose client never returns after a restart is ended by the sweep once the resume window passed", async () => {
    const dataDir = svc.dataDir;
    const clock = svc.clock;
    const first = await startPipelineService({ dataDir, clock });
    const s = await createSession(first, init);
    const c = new ResumingClient(s.url);
    await c.connect();
    const half = Math.floor(frames.length / 2);
    const sent = frames.slice(0, half);
    for (const f of sent) c.send(f);
    await until(() => c.messages.some((m) => m.type === "transcript" && m.data.is_final));
    await first.stop();
    const second = await startPipelineService({ dataDir, clock, env: { PORT: String(first.running.port) } });
    try {
      // Inside the resume window the session is left alone: its client may still come back.
      expect(await second.running.gateway.sweepAbandoned()).toBe(0);
      expect((await second.running.deps.store.getSessionById(s.id))!.status).toBe("processing");
      clock.advance(61_000);
      expect(await second.running.gateway.sweepAbandoned()).toBe(1);
      const record = (await second.running.deps.store.getSessionById(s.id))!;
      expect(record.status).toBe("done");
      expect(record.resumeState).toBeNull();
      // Every byte received before the restart is transcribed and counted.
      const bytes = sent.reduce((n, f) => n + f.length, 0);
      expect(record.audioDurationS).toBeCloseTo(bytes / 32000, 2);
      const texts = (record.result as { transcription: { utterances: { text: string }[] } }).transcription.utterances.map((u) => words(u.text));
      expect(texts.length).toBeGreaterThan(0);
      expect(TOKENS.slice(0, texts.length)).toEqual(texts as never);
      expect(existsSync(record.recordingPath!)).toBe(true);
      // The client that comes back too late is refused.
      await c.connect();
      await c.done;
      expect(c.closes.at(-1)).toBe(4401);
      expect(await second.running.gateway.sweepAbandoned()).toBe(0);
    } finally {
      await second.stop();
    }
  }, 90_000);
});
