/**
 * The Whisper engine on real weights (whisper-base, multilingual; whisper-tiny.en, English only):
 * language detection with probabilities, the translate task, greedy and beam search, timestamps and
 * word timings, the custom-vocabulary prompt, and no text on silence or noise.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import * as ort from "onnxruntime-node";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { loadWhisperMelFilters, whisperLogMel } from "../../workers/dsp/whisper-mel.ts";
import type { WhisperDecoder } from "../../workers/engines/whisper/decoder.ts";
import { WhisperEncoder } from "../../workers/engines/whisper/encoder.ts";
import type { WhisperTokenizer } from "../../workers/tokenizer/whisper.ts";
import { WhisperEngine, type WhisperTranscribeRequest } from "../../workers/engines/whisper/index.ts";
import { mulberry32 } from "../../workers/util/prng.ts";
import { createResampler } from "../../server/audio/resampler.ts";
import { concatSamples } from "../../server/audio/samples.ts";
import { sharedAudio } from "../helpers/server.ts";
import { modelsDir, requireWeights } from "./models.ts";
import { referenceTexts } from "./stream.ts";
import { wordErrorRate } from "./wer.ts";
import { catalogueEntry } from "../../workers/catalogue/entries.ts";
import { speak } from "../helpers/addon-models.ts";

const ready = requireWeights("whisper-tiny.en", "whisper-base");
const clip = (name: string) => readWavFile(path.join(sharedAudio, name)).samples;
let base: WhisperEngine;
let tiny: WhisperEngine;
/**
 * whisper-base on its fp32 files whatever the CPU: for the tests whose audio is chosen for what the
 * model hears in it (a language, a prompt it follows), which the catalogue's files change by CPU
 * (the signed-int8 encoder where the CPU has 8-bit dot products, fp32 elsewhere).
 */
let base32: WhisperEngine;
let references: Map<string, string>;

beforeAll(async () => {
  if (!ready) return;
  references = await referenceTexts(sharedAudio);
  const assetsDir = path.join(modelsDir, "whisper-assets");
  // each with the files its catalogue entry loads
  [base, tiny, base32] = await Promise.all([
    WhisperEngine.load({ modelDir: path.join(modelsDir, "whisper-base"), assetsDir, name: "whisper-base", preferQuantized: "signed-encoder" }),
    WhisperEngine.load({ modelDir: path.join(modelsDir, "whisper-tiny.en"), assetsDir, name: "whisper-tiny.en", preferQuantized: "encoder" }),
    WhisperEngine.load({ modelDir: path.join(modelsDir, "whisper-base"), assetsDir, name: "whisper-base", preferQuantized: false }),
  ]);
});
afterAll(async () => {
  await base?.dispose();
  await tiny?.dispose();
  await base32?.dispose();
});

describe.skipIf(!ready)("Whisper engine on real weights", () => {
  test("language detection: probabilities over the model's languages, the spoken one first; candidates restrict it", async () => {
    const probs = await base.detectLanguage!(clip("leopard_test_de.wav"));
    expect(probs.length).toBe(99);
    expect(probs.reduce((s, p) => s + p.probability, 0)).toBeCloseTo(1, 3);
    expect(probs[0]!.language).toBe("de");
    expect(probs[0]!.probability).toBeGreaterThan(0.5);
    const restricted = await base.detectLanguage!(clip("leopard_test_de.wav"), ["fr", "es"]);
    expect(restricted.map((p) => p.language).sort()).toEqual(["es", "fr"]);
    expect(await tiny.detectLanguage!(clip("leopard_test_de.wav"))).toEqual([{ language: "en", probability: 1 }]);
  }, 60_000);

  test("a decode after language detection (started from the detection's cross-attention caches) equals one told the language", async () => {
    for (const name of ["leopard_test_de.wav", "jfk.wav"]) {
      const audio = clip(name);
      const detected = await base.transcribe({ audio, partial: false, beamSize: 5, previousText: "Hello there." });
      const told = await base.transcribe({ audio, partial: false, beamSize: 5, previousText: "Hello there.", languages: [detected.language] });
      expect(detected.text.length).toBeGreaterThan(20);
      expect(detected.text).toBe(told.text);
      expect(detected.words).toEqual(told.words);
      expect(detected.confidence).toBe(told.confidence);
    }
  }, 60_000);

  test("a context in another language than the one detected is left out: a Japanese prompt no longer turns English into katakana", async () => {
    if (!ready) return;
    const audio = clip("jfk.wav").subarray(2.5 * 16000, 5 * 16000); // "ASK NOT!"
    const prompt = "こんにちは。お元気ですか。スティックスパテーション。";
    const alone = await base32.transcribe({ audio, partial: false, beamSize: 5 });
    const prompted = await base32.transcribe({ audio, partial: false, beamSize: 5, previousText: prompt });
    const labelled = await base32.transcribe({ audio, partial: false, beamSize: 5, previousText: prompt, contextLanguage: "ja" });
    const same = await base32.transcribe({ audio, partial: false, beamSize: 5, previousText: prompt, contextLanguage: "en" });
    expect(alone.text).toMatch(/ask not/i);
    // Unlabelled (or labelled as the language detected), the prompt leads the decode astray.
    expect(prompted.text).toMatch(/\p{Script=Katakana}/u);
    expect(same.text).toBe(prompted.text);
    expect(labelled.language).toBe("en");
    expect(labelled.text).toBe(alone.text);
    // With a lead in the other language, the audio after the lead is decoded alone, unprompted.
    const before = clip("jfk.wav").subarray(0, 2.5 * 16000);
    const led = await base32.transcribe({ audio: concatSamples([before, audio]), partial: false, beamSize: 5, lead: { samples: before.length, text: prompt }, contextLanguage: "ja" });
    expect(led.text).toBe(alone.text);
  }, 60_000);

  test("a final whose language the detection leaves uncertain is decoded in its two likeliest languages, the likelier decode kept", async () => {
    if (!ready) return;
    // An espeak-ng Scottish voice dictating a number, which whisper-base hears as Latin first, then
    // English, Welsh among the next. The session's evidence (`languagePrior`) is shaped so that the
    // posterior is Welsh 0.45, English 0.40: the decodes decide.
    const audio = speak("Call me back on six five zero, three one nine, eight eight four seven, any time after five.", { voice: "en-gb-scotland+f4", rate: 155 });
    const detected = await base32.detectLanguage!(audio);
    const target: Record<string, number> = { cy: 0.45, en: 0.4 };
    const rest = 0.15 / (detected.length - 2);
    const languagePrior = Object.fromEntries(detected.map((p) => [p.language, Math.log((target[p.language] ?? rest) / p.probability)]));
    const r = await base32.transcribe({ audio, partial: false, beamSize: 5, languagePrior });
    const english = await base32.transcribe({ audio, partial: false, beamSize: 5, languages: ["en"] });
    const welsh = await base32.transcribe({ audio, partial: false, beamSize: 5, languages: ["cy"] });
    expect(english.stats[0]!.sumLogprob + Math.log(0.4)).toBeGreaterThan(welsh.stats[0]!.sumLogprob + Math.log(0.45));
    expect(r.language).toBe("en");
    expect(r.text).toBe(english.text);
    expect(r.text).toMatch(/call me back/i);
    // The utterance's evidence for the session: Welsh's share of the detection goes to English.
    expect(r.languageProbabilities![0]!.language).toBe("en");
    // A partial keeps the likeliest language (its final will choose).
    const partial = await base32.transcribe({ audio, partial: true, languagePrior });
    expect(partial.language).toBe("cy");
  }, 60_000);

  test("translate task: French speech comes out in English", async () => {
    const r = await base.transcribe({ audio: clip("leopard_test_fr.wav"), partial: false, task: "translate" });
    console.log(`translate fr→en: «${r.text}»`);
    expect(r.language).toBe("fr");
    expect(r.languageProbabilities?.[0]).toMatchObject({ language: "fr" });
    expect(r.text).toMatch(/\bthe\b/i);
    expect(r.text).toMatch(/consul/i);
    expect(r.text).not.toMatch(/\b(le|des|et)\b/i);
    await expect(tiny.transcribe({ audio: clip("jfk.wav"), partial: false, task: "translate" })).rejects.toThrow(/English-only/);
  }, 60_000);

  test("greedy and beam search both transcribe jfk.wav; segments and word timings are ordered and inside the audio", async () => {
    const audio = clip("jfk.wav");
    for (const beamSize of [1, 5]) {
      const r = await tiny.transcribe({ audio, partial: false, decoding: { beamSize } } as WhisperTranscribeRequest);
      const wer = wordErrorRate(references.get("jfk.wav")!, r.text);
      console.log(`jfk tiny.en beam ${beamSize}: WER ${(wer * 100).toFixed(1)} %`);
      expect(wer).toBeLessThanOrEqual(0.1);
      expect(r.segments.length).toBeGreaterThan(0);
      let last = 0;
      for (const s of r.segments) {
        expect(s.start).toBeGreaterThanOrEqual(last - 1e-6);
        expect(s.end).toBeGreaterThanOrEqual(s.start);
        expect(s.end).toBeLessThanOrEqual(11 + 1e-6);
        last = s.start;
      }
      let prev = 0;
      for (const w of r.words) {
        expect(w.start).toBeGreaterThanOrEqual(prev - 1e-6);
        expect(w.end).toBeGreaterThanOrEqual(w.start);
        expect(w.confidence).toBeGreaterThan(0);
        expect(w.confidence).toBeLessThanOrEqual(1);
        prev = w.end;
      }
      expect(r.words.map((w) => w.word).join(" ")).toBe(r.text);
    }
  }, 120_000);

  test("custom vocabulary: a spelling given in the prompt is adopted, without dropping words", async () => {
    // (The session's path to the same prompt, on whisper-base, is in transcription.test.ts.)
    const audio = clip("leopard_test.wav");
    const plain = await tiny.transcribe({ audio, partial: false });
    expect(plain.text).toContain("Quilter");
    const hinted = await tiny.transcribe({ audio, partial: false, vocabulary: [{ phrase: "Kwilter", intensity: 0.5 }] });
    expect(hinted.text).toContain("Mr. Kwilter");
    expect(wordErrorRate(plain.text, hinted.text)).toBeLessThanOrEqual(1 / 16 + 1e-9); // only that word changes
  }, 120_000);

  test("audio over 30 s: the second window is prompted with the first window's text and keeps the last sentence", async () => {
    const wav = readWavFile(path.join(sharedAudio, "OSR_us_000_0034_8k.wav"));
    const resampler = await createResampler(wav.sampleRate, 16_000);
    const audio = Float32Array.from([...resampler.push(wav.samples), ...resampler.flush()]);
    resampler.close();
    expect(audio.length / 16_000).toBeGreaterThan(30);
    // Unprompted, the beam search of the 5.5-s second window dropped "When you hear the bell come quickly" (WER 12 %).
    const r = await tiny.transcribe({ audio, partial: false, beamSize: 5 });
    expect(r.text).toMatch(/hear the bell,? come quickly\.?$/i);
    expect(wordErrorRate(references.get("OSR_us_000_0034_8k.wav")!, r.text)).toBeLessThan(0.05);
  }, 60_000);

  test("a call given two cores runs the two-thread encoder (loaded by the first such call) and returns the same result", async () => {
    const audio = clip("jfk.wav");
    const one = await tiny.transcribe({ audio, partial: false });
    const first = await tiny.transcribe({ audio, partial: false, cores: 2 }); // starts loading the wider encoder
    expect(first.text).toBe(one.text);
    const wider = (tiny as unknown as { wideEncoder: { cores: number; session: Promise<unknown> } | null }).wideEncoder;
    expect(wider?.cores).toBe(2);
    expect(await wider!.session).not.toBeNull();
    const wide = await tiny.transcribe({ audio, partial: false, cores: 2 });
    expect(wide.text).toBe(one.text);
    expect(wide.words.map((w) => w.word)).toEqual(one.words.map((w) => w.word));
    expect(wide.confidence).toBeCloseTo(one.confidence, 2);
  });

  test("short partial windows: a partial takes a short window only when both the request and the model's options allow it; a final never does", async () => {
    const encoder = (tiny as unknown as { encoder: { run: (features: { dims: readonly number[] }, signal?: AbortSignal) => Promise<unknown> } }).encoder;
    const frames: number[] = [];
    const run = encoder.run.bind(encoder);
    encoder.run = (features, signal) => (frames.push(features.dims[2]!), run(features, signal));
    try {
      const audio = clip("leopard_test.wav"); // 5.9 s: a 15-s window
      const allowed = { decoding: { shortPartialWindows: true } } as Partial<WhisperTranscribeRequest>;
      const short = await tiny.transcribe({ audio, partial: true, shortPartialWindows: true, ...allowed });
      await tiny.transcribe({ audio, partial: true, shortPartialWindows: true }); // the model's options say no
      await tiny.transcribe({ audio, partial: true, ...allowed }); // the session's profile says no
      await tiny.transcribe({ audio, partial: false, shortPartialWindows: true, ...allowed }); // a final
      expect(frames).toEqual([1500, 3000, 3000, 3000]);
      expect(wordErrorRate(references.get("leopard_test.wav")!, short.text)).toBeLessThan(0.05);
    } finally {
      encoder.run = run;
    }
    // The catalogue allows it where bench/wer and bench/fidelity found no word lost: tiny.en and base.
    const option = (id: string) => (catalogueEntry(id)!.options as { decoding?: { shortPartialWindows?: boolean } }).decoding?.shortPartialWindows === true;
    expect([option("whisper-tiny.en"), option("whisper-base")]).toEqual([true, true]);
  });

  test("low latency: a short utterance gets a shorter encoder window (the converted encoders take any length), with the 30-s window's words here", async () => {
    for (const [engine, name] of [[tiny, "leopard_test.wav"], [base, "leopard_test_de.wav"]] as const) {
      const encoder = (engine as unknown as { encoder: { run: (features: { dims: readonly number[] }, signal?: AbortSignal) => Promise<unknown> } }).encoder;
      const frames: number[] = [];
      const run = encoder.run.bind(encoder);
      encoder.run = (features, signal) => (frames.push(features.dims[2]!), run(features, signal));
      try {
        const audio = clip(name); // 5.3–5.9 s: a 15-s window
        const short = await engine.transcribe({ audio, partial: false, lowLatency: true });
        const full = await engine.transcribe({ audio, partial: false });
        const longest = await engine.transcribe({ audio, partial: false, lowLatency: true, decoding: { shortestWindowS: 30 } } as WhisperTranscribeRequest);
        expect(frames).toEqual([1500, 3000, 3000]);
        console.log(`${name}, 15-s window: «${short.text}»`);
        expect(short.text).toBe(full.text);
        expect(longest.text).toBe(full.text);
        expect(short.words.at(-1)!.end).toBeLessThanOrEqual(audio.length / 16_000 + 1e-6);
      } finally {
        encoder.run = run;
      }
    }
    const r = await tiny.transcribe({ audio: clip("leopard_test.wav"), partial: false, lowLatency: true });
    expect(wordErrorRate(references.get("leopard_test.wav")!, r.text)).toBeLessThan(0.05);
  }, 60_000);

  test("low latency: a final's short window that reads as silence is encoded again in 30 s (a lone \"Yes.\" is kept); a partial's is not", async () => {
    // espeak-ng's "Yes." cut 0.1 s around its sound: 0.54 s, which a 15-s window of the signed-int8
    // encoder scores as silence (<|nospeech|> 0.74, average log-probability −1.14) and a 30-s one
    // does not (0.51); a hiss reads as silence in both.
    const spoken = speak("Yes.");
    const loud = (x: number) => Math.abs(x) >= 0.01;
    const first = spoken.findIndex(loud);
    const last = spoken.findLastIndex(loud);
    const audio = spoken.slice(Math.max(0, first - 1600), last + 1600);
    const encoder = (tiny as unknown as { encoder: { run: (features: { dims: readonly number[] }, signal?: AbortSignal) => Promise<unknown> } }).encoder;
    const frames: number[] = [];
    const run = encoder.run.bind(encoder);
    encoder.run = (features, signal) => (frames.push(features.dims[2]!), run(features, signal));
    try {
      // Whether this short window reads as silence depends on the encoder file the CPU runs (the
      // signed-int8 one with 8-bit dot products scores it silent, the unsigned one elsewhere not):
      // the partial, which is never checked again, tells. The final keeps "Yes." either way, and
      // encodes again in 30 s exactly when the short window read as silence.
      const partial = await tiny.transcribe({ audio, partial: true, lowLatency: true });
      expect(frames).toEqual([1500]);
      const shortSilent = partial.text === "";
      frames.length = 0;
      const final = await tiny.transcribe({ audio, partial: false, lowLatency: true, beamSize: 1 });
      expect(frames).toEqual(shortSilent ? [1500, 3000] : [1500]);
      expect(final.text).toBe("Yes.");
      expect(final.stats).toHaveLength(1); // the kept window's, not a discarded one's
      // Real silence is checked in 30 s too, and stays silence.
      frames.length = 0;
      const random = mulberry32(11);
      const hiss = Float32Array.from({ length: 16000 }, () => (random() * 2 - 1) * 0.01);
      expect((await tiny.transcribe({ audio: hiss, partial: false, lowLatency: true })).text).toBe("");
      expect(frames.slice(0, 2)).toEqual([1500, 3000]);
    } finally {
      encoder.run = run;
    }
  }, 60_000);

  test("low latency: no temperature fallback for a low log-probability alone, but still for repetition", async () => {
    const audio = readWavFile(path.join(sharedAudio, "spelling", "a.wav")).samples;
    // A threshold above this clip's greedy log-probability (about -0.7) makes the default fall back,
    // once windows of a word or two do.
    const strict = { logProbThreshold: -0.3, lowLogprobFallbackMinS: 0 };
    const full = await tiny.transcribe({ audio, partial: false, beamSize: 1, decoding: strict } as WhisperTranscribeRequest);
    expect(full.stats[0]!.temperature).toBeGreaterThan(0);
    // By default a clip this short does not fall back for its log-probability alone.
    const short = await tiny.transcribe({ audio, partial: false, beamSize: 1, decoding: { logProbThreshold: -0.3 } } as WhisperTranscribeRequest);
    expect(short.stats[0]).toMatchObject({ temperature: 0, passed: true });
    expect(short.stats[0]!.avgLogprob).toBeLessThan(-0.3);
    const quick = await tiny.transcribe({ audio, partial: false, beamSize: 1, lowLatency: true, decoding: strict } as WhisperTranscribeRequest);
    expect(quick.stats[0]!.temperature).toBe(0);
    expect(quick.stats[0]!.avgLogprob).toBeLessThan(strict.logProbThreshold);
    // Every result "repetitive": low latency goes through every temperature too.
    const looping = await tiny.transcribe({ audio, partial: false, beamSize: 1, lowLatency: true, decoding: { compressionRatioThreshold: 0.01 } } as WhisperTranscribeRequest);
    expect(looping.stats[0]!.temperature).toBe(1);
  }, 60_000);

  test("the converted encoders run in two stages: the whole file's output, and a decode aborted in the first stops before the second", async () => {
    const filters = loadWhisperMelFilters(path.join(modelsDir, "whisper-assets"), 80);
    const mel = whisperLogMel(clip("jfk.wav"), 80, { padToSamples: 15 * 16_000, filters });
    const features = new ort.Tensor("float32", mel.data, [1, 80, mel.nFrames]);
    for (const engine of [tiny, base]) {
      const encoder = (engine as unknown as { encoder: WhisperEncoder }).encoder;
      expect(encoder.stages).toBe(2);
      const whole = await ort.InferenceSession.create(encoder.paths[0]!.replace(/\.stage0\.onnx$/, ".onnx"), { intraOpNumThreads: 1 });
      const expected = (await whole.run({ input_features: features })).last_hidden_state!.data as Float32Array;
      await whole.release();
      expect((await encoder.run(features)).data).toEqual(expected);

      // Counted through the stages' sessions: an abort while the first runs lets the second not start.
      const sessions = (encoder as unknown as { sessions: { run: (...a: unknown[]) => Promise<unknown> }[] }).sessions;
      const runs = sessions.map((s) => s.run.bind(s));
      let calls = 0;
      const controller = new AbortController();
      sessions.forEach((s, i) => (s.run = (...a) => (++calls === 1 && controller.abort(), runs[i]!(...a))));
      try {
        await expect(engine.transcribe({ audio: clip("jfk.wav"), partial: true }, controller.signal)).rejects.toMatchObject({ name: "AbortError" });
        expect(calls).toBe(1);
        // An abort from another task (as the engine thread's abort message is) lands between stages.
        calls = 0;
        const later = new AbortController();
        setTimeout(() => later.abort(), 0);
        await expect(encoder.run(features, later.signal)).rejects.toMatchObject({ name: "AbortError" });
        expect(calls).toBeLessThan(2);
      } finally {
        sessions.forEach((s, i) => (s.run = runs[i]!));
      }
    }
  }, 60_000);

  test("stage files that do not chain (one left by an earlier cut) are refused with the files named", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "stages-"));
    try {
      const stages = (tiny as unknown as { encoder: WhisperEncoder }).encoder.paths;
      // the two stages, then the second again as a third: it reads the cut, not last_hidden_state
      [stages[0]!, stages[1]!, stages[1]!].forEach((f, i) => copyFileSync(f, path.join(dir, `encoder_model.stage${i}.onnx`)));
      await expect(WhisperEncoder.load(path.join(dir, "encoder_model.onnx"), { intraOpNumThreads: 1 })).rejects.toThrow(/encoder_model\.stage2\.onnx.*each file reading what the one before writes/);
      rmSync(path.join(dir, "encoder_model.stage2.onnx"));
      const chained = await WhisperEncoder.load(path.join(dir, "encoder_model.onnx"), { intraOpNumThreads: 1 });
      expect(chained.stages).toBe(2);
      await chained.release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  test("the converted decoders' first call projects only its last 4 positions; its last row is the one an incremental decode gives", async () => {
    const filters = loadWhisperMelFilters(path.join(modelsDir, "whisper-assets"), 80);
    const mel = whisperLogMel(clip("jfk.wav"), 80, { padToSamples: 15 * 16_000, filters });
    const features = new ort.Tensor("float32", mel.data, [1, 80, mel.nFrames]);
    // the default whisper-base may load the decoder with 8-bit layers, whose activations are quantized
    // per call: the same next token there, its logits within that rounding
    for (const [engine, tolerance] of [[tiny, 1e-3], [base32, 1e-3], [base, 0.3]] as const) {
      const { decoder, encoder, tokenizer } = engine as unknown as { decoder: WhisperDecoder; encoder: WhisperEncoder; tokenizer: WhisperTokenizer };
      const V = decoder.vocabSize;
      const hidden = await encoder.run(features);
      const prompt = [tokenizer.sotPrev, ...tokenizer.encode(" And so my fellow Americans, ask not what your country can do for you."), tokenizer.sot];
      const whole = await decoder.run(prompt, hidden, null);
      expect(whole.firstPosition).toBe(prompt.length - 4);
      expect(whole.logits.length).toBe(4 * V);
      const head = await decoder.run(prompt.slice(0, -1), hidden, null);
      const step = await decoder.run(prompt.slice(-1), hidden, head.cache);
      const last = whole.logits.subarray(3 * V);
      let diff = 0;
      for (let i = 0; i < V; i++) diff = Math.max(diff, Math.abs(last[i]! - step.logits[i]!));
      expect(diff).toBeLessThan(tolerance);
      const best = (x: Float32Array) => x.reduce((b, v, i) => (v > x[b]! ? i : b), 0);
      expect(best(last)).toBe(best(step.logits.subarray(0, V)));
    }
  }, 60_000);

  test("silence and noise give no text", async () => {
    for (const engine of [base, tiny]) {
      const silent = await engine.transcribe({ audio: new Float32Array(5 * 16000), partial: false });
      expect(silent).toMatchObject({ text: "", noSpeech: true });
    }
    // White noise runs the whole temperature fallback (the costly case): checked on the small model.
    const random = mulberry32(7);
    const noise = Float32Array.from({ length: 5 * 16000 }, () => (random() * 2 - 1) * 0.1);
    expect((await tiny.transcribe({ audio: noise, partial: false })).text).toBe("");
  }, 120_000);
});
