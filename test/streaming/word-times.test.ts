/**
 * Word times on real weights over the WebSocket: aligned by the model's cross-attention
 * (workers/engines/whisper/alignment.ts), session-relative, monotonic, inside their utterance, and
 * the same after a resume. solaria-1 (whisper-base) for jfk.wav against faster-whisper's
 * `word_timestamps=True` on the same weights; trantoria-1 (whisper-tiny.en) for the rest. Models
 * from `MODELS_DIR`, else the checkout's `models/`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { normalizeWord } from "../../server/session/overlap.ts";
import { sharedAudio, startTestService, type TestService } from "../helpers/server.ts";
import { chunks, createSession, RATE, RawClient, ResumingClient, spellingSamples, toPcm16, type Msg } from "../pipeline/helpers.ts";

const MODELS = path.resolve(process.env.MODELS_DIR ?? path.join(import.meta.dir, "../../models"));

type Word = { word: string; start: number; end: number; confidence: number };
type Final = { start: number; end: number; words: Word[] };

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ modelsDir: MODELS });
}, 120_000);
afterAll(() => svc?.stop());

/** Final utterances, one per id (a resume may send one again), in session order. */
function finals(messages: Msg[]): Final[] {
  const byId = new Map(messages.filter((m) => m.type === "transcript" && m.data.is_final).map((m) => [m.data.id, m.data.utterance as Final]));
  return [...byId.values()].sort((a, b) => a.start - b.start);
}

/** Every word inside its utterance, none starting before the one before it ends, across utterances. */
function expectOrdered(fs: Final[]): void {
  let floor = 0;
  for (const f of fs) {
    for (const w of f.words) {
      expect(w.start).toBeGreaterThanOrEqual(floor - 1e-6);
      expect(w.end).toBeGreaterThanOrEqual(w.start);
      expect(w.start).toBeGreaterThanOrEqual(f.start - 1e-6);
      expect(w.end).toBeLessThanOrEqual(f.end + 1e-6);
      expect(w.confidence).toBeGreaterThan(0);
      expect(w.confidence).toBeLessThanOrEqual(1);
      floor = w.end;
    }
  }
}

/** Streams samples in 100-ms frames at real time, partials on, then stop_recording. */
async function streamRealTime(samples: Float32Array, init: Record<string, unknown>): Promise<Msg[]> {
  const { url } = await createSession(svc, { language_config: { languages: ["en"] }, messages_config: { receive_partial_transcripts: true }, ...init });
  const client = new RawClient(url);
  await client.opened;
  await client.sendRealTime(chunks(toPcm16(samples), RATE * 0.2));
  client.stop();
  expect((await client.closed).code).toBe(1000);
  return client.messages;
}

describe("word times", () => {
  test("jfk.wav on solaria-1, streamed with partials: 'ask' and 'not' end where faster-whisper ends them, start no earlier than it starts them", async () => {
    const lead = 0.5;
    const jfk = readWavFile(path.join(sharedAudio, "jfk.wav")).samples;
    const samples = new Float32Array(jfk.length + 2.5 * RATE);
    samples.set(jfk, lead * RATE);
    const messages = await streamRealTime(samples, { model: "solaria-1", endpointing: 1.2 });
    const fs = finals(messages);
    expectOrdered(fs);
    const words = fs.flatMap((f) => f.words);
    if (process.env.DEBUG_WORDS) for (const m of messages) if (m.type === "transcript") console.log(m.data.is_final, JSON.stringify(m.data.utterance.words.map((w: Word) => [w.word, w.start, w.end])));
    // faster-whisper 1.2.1, word_timestamps=True, same weights: "ask" 2.76–3.74 s, "not" 3.74–4.24 s
    // (audio time; the session has `lead` seconds of silence before it). Its starts lie in the pauses
    // before the words (the audio is quiet from 2.14 s to 3.24 s and from 3.72 s to 3.96 s): the
    // service starts a word after a pause where its sound starts, so a start may be as late as that.
    // The signed-int8 encoder (CPUs with 8-bit dot products) makes "ASK NOT!" "asked not" in some
    // runs: the word is timed the same either way.
    const at = (w: string) => words.find((x) => normalizeWord(x.word) === w || (w === "ask" && normalizeWord(x.word) === "asked"))!;
    for (const [w, start, latest, end] of [["ask", 2.76, 3.26, 3.74], ["not", 3.74, 4.0, 4.24]] as const) {
      expect(at(w)).toBeDefined();
      expect(at(w).start).toBeGreaterThan(lead + start - 0.15);
      expect(at(w).start).toBeLessThan(lead + latest + 0.15);
      expect(Math.abs(at(w).end - (lead + end))).toBeLessThan(0.15);
    }
  }, 180_000);

  test("across utterances and across a resume: monotonic, inside each utterance, the same times as uninterrupted", async () => {
    const pcm = toPcm16(spellingSamples(["a", "zero", "b", "zero"], 1, 0.5));
    const frames = chunks(pcm, 3200);
    const init = { model: "trantoria-1", language_config: { languages: ["en"] }, messages_config: { receive_acknowledgments: true } };
    const run = async (cutAt: number | null) => {
      const c = new ResumingClient((await createSession(svc, init)).url);
      await c.connect();
      for (const [i, f] of frames.entries()) {
        if (i === cutAt) {
          await Bun.sleep(300);
          await c.drop();
          await c.connect();
        }
        c.send(f);
      }
      c.stop();
      await c.done;
      return finals(c.messages);
    };
    const whole = await run(null);
    const resumed = await run(Math.floor(frames.length / 2));
    expect(whole.length).toBe(4);
    expectOrdered(whole);
    expectOrdered(resumed);
    const times = (fs: Final[]) => fs.flatMap((f) => f.words.map((w) => [normalizeWord(w.word), w.start, w.end] as const));
    expect(times(resumed).map((t) => t[0])).toEqual(times(whole).map((t) => t[0]));
    // A restarted process has no audio before its replay point, so the first short final after the
    // resume is decoded without the lead the uninterrupted run gave it (session/lead.ts): its words
    // are aligned in another window, within the alignment's own tolerance.
    for (const [i, [, start, end]] of times(resumed).entries()) {
      expect(Math.abs(start - times(whole)[i]![1])).toBeLessThan(0.15);
      expect(Math.abs(end - times(whole)[i]![2])).toBeLessThan(0.15);
    }
  }, 180_000);
});
