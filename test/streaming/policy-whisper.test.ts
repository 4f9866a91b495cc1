/**
 * The streaming policy driven by Whisper tiny.en itself (real weights, `MODELS_DIR` or the
 * checkout's `models/`): the engine is called directly, without a service around it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { WhisperEngine } from "../../workers/engines/whisper/index.ts";
import type { WordTiming } from "../../workers/engines/types.ts";
import { STREAMING_PROFILES } from "../../server/session/profiles.ts";
import type { StreamDecodeRequest, StreamView } from "../../server/session/stream-types.ts";
import { UtteranceStream } from "../../server/session/streaming.ts";
import { normalizeWord } from "../../server/session/overlap.ts";

const ROOT = resolve(import.meta.dir, "../..");
const MODELS = resolve(process.env.MODELS_DIR ?? join(ROOT, "models"));
const AUDIO = resolve(ROOT, "../shared/audio");
const RATE = 16000;
const texts = (ws: WordTiming[]) => ws.map((x) => x.word).join(" ");

/** Word error rate after lower-casing and dropping punctuation. */
function wer(reference: string, hypothesis: string): number {
  const norm = (s: string) => s.split(/\s+/).map(normalizeWord).filter((x) => x !== "");
  const r = norm(reference);
  const h = norm(hypothesis);
  const d = Array.from({ length: r.length + 1 }, (_, i) => Array.from({ length: h.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= r.length; i++) {
    for (let j = 1; j <= h.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
  }
  return d[r.length]![h.length]! / Math.max(1, r.length);
}

/** Every view's committed words start with the previous view's committed words, unchanged. */
function expectNoRetraction(views: StreamView[]): void {
  for (let i = 1; i < views.length; i++) {
    const before = texts(views[i - 1]!.committed);
    const now = texts(views[i]!.committed);
    expect(now.startsWith(before)).toBe(true);
    expect(views[i]!.text.startsWith(now)).toBe(true);
  }
}

describe("UtteranceStream on Whisper tiny.en (real weights)", () => {
  let engine: WhisperEngine;
  const jfk = readWavFile(join(AUDIO, "jfk.wav")).samples;
  const reference = "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.";

  beforeAll(async () => {
    engine = await WhisperEngine.load({
      modelDir: join(MODELS, "whisper-tiny.en"),
      assetsDir: join(MODELS, "whisper-assets"),
      decoding: { beamSize: 1 },
    });
  });
  afterAll(() => engine?.dispose());

  const decode = (req: StreamDecodeRequest) =>
    engine.transcribe({ audio: req.audio, partial: req.partial, languages: ["en"], previousText: req.previousText || undefined, beamSize: req.beamSize });

  test("partials grow while jfk.wav is spoken, committed words stay, and the final is as good as offline", async () => {
    const offline = await engine.transcribe({ audio: jfk, partial: false, languages: ["en"] });
    const views: StreamView[] = [];
    const stream = new UtteranceStream({ profile: STREAMING_PROFILES.balanced, decode, onPartial: (v) => views.push(v) });
    for (let t = 1; t < jfk.length / RATE; t += 1) {
      stream.partial(jfk.subarray(0, t * RATE));
      await stream.idle();
    }
    const final = await stream.finish(jfk);
    expect(views.length).toBe(10);
    expect(views.filter((v) => v.text !== "").length).toBeGreaterThanOrEqual(8);
    // Words get committed before the end, and no partial changes them afterwards (the final may
    // read them again: `reviseCommitted`).
    expect(views[5]!.committed.length).toBeGreaterThan(3);
    expectNoRetraction(views);
    expect(texts(final.words)).toBe(texts([...final.committed, ...final.tentative]));
    expect(wer(reference, final.text)).toBeLessThanOrEqual(wer(reference, offline.text) * 1.1 + 1e-9);
  }, 300_000);

  /** Decodes through the engine, counting the calls. */
  function counting() {
    const calls: StreamDecodeRequest[] = [];
    return { calls, decode: (req: StreamDecodeRequest) => (calls.push(req), decode(req)) };
  }

  test("a pause that ends the utterance: its speculative decode is the final, no decode after the window", async () => {
    const leopard = readWavFile(join(AUDIO, "leopard_test.wav")).samples;
    const leopardRef = "Mr. Quilter is the apostle of the middle classes and we are glad to welcome his gospel.";
    const offline = await engine.transcribe({ audio: leopard, partial: false, languages: ["en"] });
    for (const name of ["low_latency", "accurate"] as const) {
      const { calls, decode: d } = counting();
      const views: StreamView[] = [];
      const stream = new UtteranceStream({ profile: STREAMING_PROFILES[name], decode: d, onPartial: (v) => views.push(v) });
      for (let t = 1; t < leopard.length / RATE - 0.5; t += 1) {
        stream.partial(leopard.subarray(0, t * RATE));
        await stream.idle();
      }
      // The pause partial: the whole clip (its end is the pause); then the endpointing window passes.
      stream.partial(leopard, true);
      await stream.idle();
      const before = calls.length;
      const final = await stream.finish(leopard);
      expect(calls.length).toBe(before);
      expect(calls[before - 1]!.speculative).toBe(true);
      expect(stream.stats.finalReused).toBe(true);
      expectNoRetraction([...views, final]);
      expect(wer(leopardRef, final.text)).toBeLessThanOrEqual(wer(leopardRef, offline.text) + 1e-9);
    }
  }, 300_000);

  test("an aborted decode stops before its next decoder call and rejects", async () => {
    const controller = new AbortController();
    let calls = 0;
    const counted = await WhisperEngine.load({
      modelDir: join(MODELS, "whisper-tiny.en"),
      assetsDir: join(MODELS, "whisper-assets"),
      onDecoderCall: () => {
        if (++calls === 3) controller.abort(new DOMException("no longer wanted", "AbortError"));
      },
    });
    try {
      await expect(counted.transcribe({ audio: jfk, partial: true, languages: ["en"] }, controller.signal)).rejects.toThrow("no longer wanted");
      expect(calls).toBe(3);
      // Without an abort the same decode takes some 27 decoder calls.
      calls = -1000;
      const whole = await counted.transcribe({ audio: jfk, partial: true, languages: ["en"] });
      expect(calls + 1000).toBeGreaterThan(10);
      expect(whole.text).toContain("country");
    } finally {
      await counted.dispose();
    }
  }, 120_000);

  test("speech resuming after a pause: the speculative decode is not the final, which covers everything", async () => {
    const offline = await engine.transcribe({ audio: jfk, partial: false, languages: ["en"] });
    const { calls, decode: d } = counting();
    const views: StreamView[] = [];
    const stream = new UtteranceStream({ profile: STREAMING_PROFILES.low_latency, decode: d, onPartial: (v) => views.push(v) });
    // "And so my fellow Americans" ends near 2.3 s, then a pause the speaker goes on after.
    stream.partial(jfk.subarray(0, 2.4 * RATE), true);
    await stream.idle();
    expect(calls[0]!.speculative).toBe(true);
    expect(views[0]!.text.toLowerCase()).toContain("fellow");
    for (let t = 3; t < jfk.length / RATE; t += 1) {
      stream.partial(jfk.subarray(0, t * RATE));
      await stream.idle();
    }
    const before = calls.length;
    const final = await stream.finish(jfk);
    // The last partial decode did not cover the end: the final decodes the buffer anew.
    expect(calls.length).toBe(before + 1);
    expect(calls[before]!.partial).toBe(false);
    expect(stream.stats.finalReused).toBe(false);
    expectNoRetraction([...views, final]);
    expect(final.text.toLowerCase()).toContain("for your country");
    expect(wer(reference, final.text)).toBeLessThanOrEqual(wer(reference, offline.text) * 1.1 + 1e-9);
  }, 300_000);
});
