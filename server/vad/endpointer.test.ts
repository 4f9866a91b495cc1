import { afterAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { createAudioDecoder } from "../audio/decoder.ts";
import { createResampler } from "../audio/resampler.ts";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { SileroVad } from "../../workers/engines/vad/silero.ts";
import { createEndpointer } from "./endpointer.ts";
import type { EndpointerEvent, EndpointerOptions, UtteranceFinalEvent, UtterancePartialEvent } from "./endpointer-types.ts";

const SHARED = path.resolve(import.meta.dir, "../../../shared");
const MODEL = path.join(process.env.MODELS_DIR ?? path.join(SHARED, "models"), "silero-vad/silero_vad.onnx");
const RATE = 16000;

const vad = await SileroVad.load(MODEL);
afterAll(() => vad.close());

const load = async (name: string) => readWavFile(path.join(SHARED, "audio", name)).samples;

/** Speech bounds of a clip by energy (10 ms RMS above 10 % of the loudest), independent of the VAD. */
function energyBounds(x: Float32Array): { onset: number; offset: number } {
  const hop = RATE / 100;
  const rms: number[] = [];
  for (let i = 0; i + hop <= x.length; i += hop) {
    let s = 0;
    for (let j = i; j < i + hop; j++) s += x[j]! ** 2;
    rms.push(Math.sqrt(s / hop));
  }
  const limit = 0.1 * Math.max(...rms);
  const first = rms.findIndex((r) => r > limit);
  const last = rms.length - 1 - [...rms].reverse().findIndex((r) => r > limit);
  return { onset: (first * hop) / RATE, offset: ((last + 1) * hop) / RATE };
}

interface Placed {
  name: string;
  /** Speech onset / offset in the joined signal, seconds. */
  onset: number;
  offset: number;
}

/** Builds `lead` zeros, clip, `gap` zeros, clip, … `gap` zeros; clips optionally trimmed to speech. */
function join(clips: { name: string; audio: Float32Array }[], gap: number, lead = 0.5, trim = false) {
  const parts: Float32Array[] = [new Float32Array(Math.round(lead * RATE))];
  const placed: Placed[] = [];
  let pos = parts[0]!.length;
  for (const clip of clips) {
    let audio = clip.audio;
    const b = energyBounds(audio);
    if (trim) audio = audio.subarray(Math.round(b.onset * RATE), Math.round(b.offset * RATE));
    const shift = trim ? b.onset : 0;
    placed.push({ name: clip.name, onset: pos / RATE + b.onset - shift, offset: pos / RATE + b.offset - shift });
    parts.push(audio, new Float32Array(Math.round(gap * RATE)));
    pos += audio.length + Math.round(gap * RATE);
  }
  const signal = new Float32Array(pos);
  let o = 0;
  for (const p of parts) {
    signal.set(p, o);
    o += p.length;
  }
  return { signal, placed };
}

async function run(signal: Float32Array, options: EndpointerOptions = {}, piece = 1000): Promise<EndpointerEvent[]> {
  const ep = createEndpointer(vad.createStream(RATE), options);
  const events: EndpointerEvent[] = [];
  for (let i = 0; i < signal.length; i += piece) events.push(...(await ep.push(signal.subarray(i, i + piece))));
  events.push(...(await ep.flush()));
  return events;
}

const finals = (events: EndpointerEvent[]) =>
  events.filter((e): e is UtteranceFinalEvent => e.type === "utterance_final");

const CLIPS = ["a", "b", "c", "double_u", "zero", "bee"];
const clips = await Promise.all(CLIPS.map(async (name) => ({ name, audio: await load(`spelling/${name}.wav`) })));

describe("endpointer on spoken tokens joined by silence", () => {
  test("one utterance per clip, with sensible bounds and well-formed events", async () => {
    const { signal, placed } = join(clips, 1.0);
    const events = await run(signal, {}, 777);
    const utterances = finals(events);
    expect(utterances).toHaveLength(CLIPS.length);
    utterances.forEach((u, i) => {
      const clip = placed[i]!;
      expect(u.utteranceIndex).toBe(i);
      expect(u.reason).toBe("endpointing");
      // Covers the clip's speech (with a little tolerance for faint edges) …
      expect(u.start).toBeLessThanOrEqual(clip.onset + 0.05);
      expect(u.end).toBeGreaterThanOrEqual(clip.offset - 0.1);
      // … without straying far outside it.
      expect(u.start).toBeGreaterThanOrEqual(clip.onset - 0.4);
      expect(u.end).toBeLessThanOrEqual(clip.offset + 0.3);
      // Audio is exactly the [start, end) span of the signal.
      expect(u.audio.length).toBe(Math.round((u.end - u.start) * RATE));
      const from = Math.round(u.start * RATE);
      expect(u.audio).toEqual(signal.subarray(from, from + u.audio.length));
    });
    // Event order per utterance: speech_start, partials, speech_end, utterance_final.
    const kinds = events.filter((e) => e.type !== "utterance_partial").map((e) => e.type);
    expect(kinds).toEqual(CLIPS.flatMap(() => ["speech_start", "speech_end", "utterance_final"]));
    const starts = events.filter((e) => e.type === "speech_start").map((e) => (e as { time: number }).time);
    const ends = events.filter((e) => e.type === "speech_end").map((e) => (e as { time: number }).time);
    starts.forEach((t, i) => {
      expect(t).toBeGreaterThanOrEqual(utterances[i]!.start); // speech starts after the pre-roll
      expect(t).toBeLessThan(ends[i]!);
      expect(ends[i]).toBeCloseTo(utterances[i]!.end, 6);
    });
  });

  test("partials grow every interval and are prefixes of the final audio", async () => {
    const { signal } = join(clips.slice(0, 2), 1.0);
    const events = await run(signal, { partialIntervalMs: 200 }, 512);
    const partials = events.filter((e) => e.type === "utterance_partial");
    const utterances = finals(events);
    expect(utterances).toHaveLength(2);
    for (const u of utterances) {
      const mine = partials.filter((p) => p.utteranceIndex === u.utteranceIndex);
      expect(mine.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < mine.length; i++) {
        expect(mine[i]!.end - mine[i - 1]!.end).toBeGreaterThanOrEqual(0.2 - 1e-9);
        expect(mine[i]!.end - mine[i - 1]!.end).toBeLessThan(0.2 + 0.033);
      }
      for (const p of mine) {
        expect(p.start).toBe(u.start);
        const from = Math.round(p.start * RATE);
        expect(p.audio).toEqual(signal.subarray(from, from + p.audio.length));
      }
    }
    expect((await run(signal, { partialIntervalMs: 0 }, 512)).some((e) => e.type === "utterance_partial")).toBe(false);
  });

  test("partialOnPause adds one partial early in each pause, covering the whole final audio", async () => {
    const { signal } = join(clips.slice(0, 2), 1.0);
    const events = await run(signal, { partialIntervalMs: 5000, partialOnPause: true }, 512);
    const utterances = finals(events);
    expect(utterances).toHaveLength(2);
    for (const u of utterances) {
      const mine = events.filter((e): e is UtterancePartialEvent => e.type === "utterance_partial" && e.utteranceIndex === u.utteranceIndex);
      // The interval (5 s) never elapses: the partial comes from the pause, before the final.
      expect(mine.length).toBeGreaterThanOrEqual(1);
      const pause = mine[mine.length - 1]!;
      expect(pause.end).toBeGreaterThanOrEqual(u.end - 1e-9);
      expect(pause.end).toBeLessThan(u.end + 0.64);
      expect(events.indexOf(pause)).toBeLessThan(events.indexOf(u));
    }
    const plain = await run(signal, { partialIntervalMs: 5000 }, 512);
    expect(plain.some((e) => e.type === "utterance_partial")).toBe(false);
  });

  test("a 0.3 s pause is bridged by 0.64 s endpointing; a 1 s pause is not", async () => {
    const two = clips.filter((c) => c.name === "a" || c.name === "c");
    const close = join(two, 0.3, 0.5, true);
    const merged = finals(await run(close.signal));
    expect(merged).toHaveLength(1);
    expect(merged[0]!.start).toBeLessThanOrEqual(close.placed[0]!.onset + 0.05);
    expect(merged[0]!.end).toBeGreaterThanOrEqual(close.placed[1]!.offset - 0.1);
    // A shorter endpointing splits the same signal.
    expect(finals(await run(close.signal, { endpointing: 0.2 }))).toHaveLength(2);
    expect(finals(await run(join(two, 1.0, 0.5, true).signal))).toHaveLength(2);
  });

  test("events do not depend on how the audio is chunked, nor on awaiting each push", async () => {
    const { signal } = join(clips.slice(0, 3), 0.8);
    const reference = await run(signal, {}, signal.length);
    const ep = createEndpointer(vad.createStream(RATE));
    const pending: Promise<EndpointerEvent[]>[] = [];
    for (let i = 0, k = 0; i < signal.length; k++) {
      const n = [1, 100, 513, 4096, 37][k % 5]!;
      pending.push(ep.push(signal.subarray(i, i + n)));
      i += n;
    }
    pending.push(ep.flush());
    const events = (await Promise.all(pending)).flat();
    expect(events.map((e) => [e.type, "time" in e ? e.time : e.start])).toEqual(
      reference.map((e) => [e.type, "time" in e ? e.time : e.start]),
    );
    await expect(ep.push(new Float32Array(10))).rejects.toThrow(/flushed/);
  });

  test("a 64 ms fragment of speech is ignored as noise", async () => {
    const a = clips[0]!.audio;
    const vowel = energyBounds(a);
    const mid = Math.round(((vowel.onset + vowel.offset) / 2) * RATE);
    const signal = new Float32Array(RATE * 2);
    signal.set(a.subarray(mid, mid + 1024), RATE);
    expect(finals(await run(signal))).toHaveLength(0);
  });
});

describe("endpointer on long and empty audio", () => {
  test("maximum_duration_without_endpointing cuts jfk.wav into pieces no longer than the limit", async () => {
    const jfk = await load("jfk.wav");
    const limit = 2;
    const events = await run(jfk, { maxDurationWithoutEndpointing: limit, partialIntervalMs: 0 }, 3200);
    const pieces = finals(events);
    expect(pieces.length).toBeGreaterThanOrEqual(4);
    for (const p of pieces) {
      expect(p.end - p.start).toBeLessThanOrEqual(limit + 1e-9);
      expect(p.audio.length).toBeLessThanOrEqual(limit * RATE);
    }
    const cuts = pieces.filter((p) => p.reason === "max_duration");
    expect(cuts.length).toBeGreaterThanOrEqual(2);
    // A cut is looked for in the second half of the limit.
    for (const c of cuts) expect(c.end - c.start).toBeGreaterThanOrEqual(limit / 2 - 1e-9);
    // A cut piece is followed by its continuation, starting exactly where it stopped.
    for (let i = 0; i + 1 < pieces.length; i++) {
      if (pieces[i]!.reason === "max_duration") expect(pieces[i + 1]!.start).toBeCloseTo(pieces[i]!.end, 9);
    }
    pieces.forEach((p, i) => expect(p.utteranceIndex).toBe(i));
    // Without the limit the same speech yields fewer, longer utterances.
    const free = finals(await run(jfk, { partialIntervalMs: 0 }, 3200));
    expect(free.length).toBeLessThan(pieces.length);
    expect(Math.max(...free.map((u) => u.end - u.start))).toBeGreaterThan(limit);
  });

  test("a cut the recognizer asks for ends the open utterance there, and the next starts at that sample without speech events", async () => {
    // jfk's longest stretch of speech (5.41–7.58 s) four times back to back: the VAD hears speech throughout.
    const jfk = await load("jfk.wav");
    const stretch = jfk.subarray(Math.round(5.45 * RATE), Math.round(7.55 * RATE));
    const signal = new Float32Array(stretch.length * 4);
    for (let k = 0; k < 4; k++) signal.set(stretch, k * stretch.length);
    const ep = createEndpointer(vad.createStream(RATE), { partialIntervalMs: 500 });
    const events: EndpointerEvent[] = [];
    let asked = false;
    for (let i = 0; i < signal.length; i += 1600) {
      events.push(...(await ep.push(signal.subarray(i, i + 1600))));
      const partial = events.findLast((e): e is UtterancePartialEvent => e.type === "utterance_partial");
      if (!asked && partial && partial.end >= 3) {
        ep.cut(partial.utteranceIndex + 1, 2.5); // not the open utterance: ignored
        ep.cut(partial.utteranceIndex, 2.5);
        asked = true;
      }
    }
    events.push(...(await ep.flush()));
    const pieces = finals(events);
    expect(pieces.map((p) => p.reason)).toEqual(["recognizer", "flush"]);
    expect(pieces[0]!.end).toBeCloseTo(2.5, 9);
    expect(pieces[0]!.audio.length).toBe(Math.round((pieces[0]!.end - pieces[0]!.start) * RATE));
    expect(pieces[1]!.start).toBeCloseTo(2.5, 9);
    expect(pieces.map((p) => p.utteranceIndex)).toEqual([0, 1]);
    expect(events.filter((e) => e.type === "speech_start")).toHaveLength(1);
    expect(events.filter((e) => e.type === "speech_end")).toHaveLength(1);
    expect(events.some((e) => e.type === "utterance_partial" && e.utteranceIndex === 1 && e.start === 2.5)).toBe(true);
    // Once an utterance has ended, a cut asked for it changes nothing.
    ep.cut(1, 5);
    expect(await ep.flush()).toEqual([]);
  });

  test("a cut by maximum_duration_without_endpointing falls in a pause; later partials commit nothing past it", async () => {
    // jfk.wav's second utterance (from 5.2 s) runs past 5 s: its only pause (7.65–8.19 s, shorter
    // than the endpointing) is where it splits, not at 10.2 s in the middle of "for your country".
    const jfk = await load("jfk.wav");
    const events = await run(jfk, { maxDurationWithoutEndpointing: 5, partialIntervalMs: 500, partialOnPause: true }, 1600);
    const pieces = finals(events);
    const cut = pieces.find((p) => p.reason === "max_duration");
    expect(cut).toBeDefined();
    expect(cut!.end).toBeGreaterThan(7.65);
    expect(cut!.end).toBeLessThan(8.19);
    const next = pieces[pieces.indexOf(cut!) + 1]!;
    expect(next.start).toBeCloseTo(cut!.end, 9);
    expect(next.end - next.start).toBeGreaterThan(2.5); // "ask what you can do for your country", whole
    // A partial of the cut utterance that reaches past its final commits nothing past it: words a
    // recognizer committed from a partial stay inside it.
    const mine = events.filter((e): e is UtterancePartialEvent => e.type === "utterance_partial" && e.utteranceIndex === cut!.utteranceIndex);
    for (const e of mine) if (e.end > cut!.end + 1e-9) expect(e.commitLimit).toBeCloseTo(cut!.end, 9);
    // Partials go on after the pause (with that limit), and in the next piece.
    expect(mine.filter((e) => e.end > 9).length).toBeGreaterThanOrEqual(2);
    expect(events.some((e) => e.type === "utterance_partial" && e.utteranceIndex === next.utteranceIndex)).toBe(true);
  });

  test("a pause as short as its pause partial's delay is still where the cut falls, at that partial's end", async () => {
    // jfk's stretch of continuous speech twice, 64 ms of silence, the stretch again (from 0.5 s).
    const jfk = await load("jfk.wav");
    const stretch = jfk.subarray(Math.round(5.45 * RATE), Math.round(7.55 * RATE));
    const gap = Math.round(0.064 * RATE);
    const signal = new Float32Array(RATE / 2 + 3 * stretch.length + gap + RATE);
    const gapAt = RATE / 2 + 2 * stretch.length;
    signal.set(stretch, RATE / 2);
    signal.set(stretch, RATE / 2 + stretch.length);
    signal.set(stretch, gapAt + gap);
    const events = await run(signal, { maxDurationWithoutEndpointing: 5, partialIntervalMs: 500, partialOnPause: true }, 1600);
    const cut = finals(events).find((p) => p.reason === "max_duration")!;
    const pausePartial = events.find((e): e is UtterancePartialEvent => e.type === "utterance_partial" && e.pause && e.end > gapAt / RATE)!;
    expect(pausePartial.end).toBeLessThan((gapAt + gap) / RATE + 0.04);
    expect(cut.end).toBeCloseTo(pausePartial.end, 6);
  });

  test("continuous speech with no pause is cut at the limit at the latest, never before the last partial", async () => {
    // Three copies of jfk's longest stretch of speech (5.41–7.58 s) back to back: no silent chunk.
    const jfk = await load("jfk.wav");
    const stretch = jfk.subarray(Math.round(5.45 * RATE), Math.round(7.55 * RATE));
    const signal = new Float32Array(stretch.length * 4);
    for (let i = 0; i < 4; i++) signal.set(stretch, i * stretch.length);
    const events = await run(signal, { maxDurationWithoutEndpointing: 5, partialIntervalMs: 500, partialOnPause: true }, 1600);
    const cut = finals(events).find((p) => p.reason === "max_duration")!;
    expect(cut).toBeDefined();
    expect(cut.end - cut.start).toBeLessThanOrEqual(5 + 1e-9);
    const lastPartial = Math.max(...events.filter((e) => e.type === "utterance_partial" && e.utteranceIndex === cut.utteranceIndex).map((e) => (e as { end: number }).end));
    expect(cut.end).toBeGreaterThanOrEqual(lastPartial - 1e-9);
  });

  test("leopard_empty.wav yields no events and holds only the pre-roll", async () => {
    const empty = await load("leopard_empty.wav");
    const ep = createEndpointer(vad.createStream(RATE));
    let maxHeld = 0;
    const events: EndpointerEvent[] = [];
    for (let i = 0; i < empty.length; i += 1600) {
      events.push(...(await ep.push(empty.subarray(i, i + 1600))));
      maxHeld = Math.max(maxHeld, ep.samplesHeld);
    }
    events.push(...(await ep.flush()));
    expect(events).toEqual([]);
    expect(ep.samplesReceived).toBe(empty.length);
    expect(maxHeld).toBeLessThanOrEqual(0.2 * RATE + 512 + 1600);
  });

  test("an utterance still open at the end is closed by flush", async () => {
    const a = clips[0]!.audio;
    const b = energyBounds(a);
    const cut = a.subarray(0, Math.round((b.offset - 0.05) * RATE)); // stop mid-word
    const events = await run(cut);
    const [u] = finals(events);
    expect(finals(events)).toHaveLength(1);
    expect(u!.reason).toBe("flush");
    expect(u!.end).toBeCloseTo(cut.length / RATE, 6);
    expect(events.at(-2)).toEqual({ type: "speech_end", time: u!.end });
  });

  test("8 kHz telephone audio works through decoder → resampler → endpointer", async () => {
    const bytes = new Uint8Array(await Bun.file(path.join(SHARED, "audio/OSR_us_000_0034_8k.wav")).arrayBuffer());
    const decoder = createAudioDecoder({ encoding: "wav/pcm", bitDepth: 16, sampleRate: 8000, channels: 1 });
    const resampler = await createResampler(8000, RATE);
    const ep = createEndpointer(vad.createStream(RATE), { partialIntervalMs: 0 });
    const events: EndpointerEvent[] = [];
    for (let i = 0; i < bytes.length; i += 3200) {
      const [mono] = decoder.push(bytes.subarray(i, i + 3200));
      events.push(...(await ep.push(resampler.push(mono!))));
    }
    events.push(...(await ep.push(resampler.flush())), ...(await ep.flush()));
    resampler.close();
    const duration = decoder.framesDecoded / 8000;
    expect(duration).toBeGreaterThan(34);
    expect(ep.samplesReceived).toBe(decoder.framesDecoded * 2);
    // Ten Harvard sentences, read with pauses between them.
    const utterances = finals(events);
    expect(utterances.length).toBeGreaterThanOrEqual(8);
    expect(utterances.length).toBeLessThanOrEqual(14);
    const speech = utterances.reduce((s, u) => s + u.end - u.start, 0);
    expect(speech / duration).toBeGreaterThan(0.5);
    expect(speech / duration).toBeLessThan(0.95);
    for (let i = 1; i < utterances.length; i++) expect(utterances[i]!.start).toBeGreaterThanOrEqual(utterances[i - 1]!.end);
  });

  test("chunks are scored as urgent only while speech may be ending or may complete the endpointing silence: most pauses and every final come from urgent calls", async () => {
    const s = vad.createStream(RATE);
    let urgent = false;
    let calls = 0;
    let urgentCalls = 0;
    const watched = { ...s, processMany: (f: Float32Array, u?: boolean) => ((urgent = u === true), calls++, urgent && urgentCalls++, s.processMany(f)) };
    const ep = createEndpointer(watched, { partialOnPause: true, partialIntervalMs: 500 });
    const signal = (await load("silero_en.wav"));
    let pauses = 0;
    let urgentPauses = 0;
    const finalsSeen: boolean[] = [];
    for (let i = 0; i < signal.length; i += RATE / 10) {
      for (const e of await ep.push(signal.subarray(i, i + RATE / 10))) {
        if (e.type === "utterance_partial" && e.pause) (pauses++, urgent && urgentPauses++);
        if (e.type === "utterance_final") finalsSeen.push(urgent);
      }
    }
    s.close();
    expect(finalsSeen.length).toBeGreaterThan(3);
    expect(finalsSeen.every(Boolean)).toBe(true);
    expect(urgentPauses / pauses).toBeGreaterThan(0.8);
    // The rest (speech going on, the silence after a pause partial until the chunk that may end the
    // utterance, silence between utterances) may wait to be batched: 44 of 600 calls here, 112
    // when every chunk of a pause was urgent.
    expect(urgentCalls / calls).toBeLessThan(0.1);
  });

  test("bad options are rejected", () => {
    const s = vad.createStream(RATE);
    expect(() => createEndpointer(s, { endpointing: 0 })).toThrow(/endpointing/);
    expect(() => createEndpointer(s, { maxDurationWithoutEndpointing: 0.01 })).toThrow(/maxDuration/);
    expect(() => createEndpointer(s, { startThreshold: 0.3, endThreshold: 0.4 })).toThrow(/threshold/);
    expect(() => createEndpointer(s, { backgroundGapDb: 0 })).toThrow(/backgroundGapDb/);
  });
});

describe("endpointer under background talk", () => {
  /**
   * leopard_test.wav twice, 2 s apart, over silero_en.wav (another voice, talking throughout)
   * `belowDb` quieter than the near speaker's speech: the VAD scores the pauses as speech.
   */
  async function overTalk(belowDb: number) {
    const near = await load("leopard_test.wav");
    const { signal, placed } = join([{ name: "leopard", audio: near }, { name: "leopard", audio: near }], 2, 1);
    const far = await load("silero_en.wav");
    const power = (x: Float32Array, a: number, b: number) => x.subarray(a, b).reduce((s, v) => s + v * v, 0) / Math.max(1, b - a);
    const speech = power(signal, Math.round(placed[0]!.onset * RATE), Math.round(placed[0]!.offset * RATE));
    const gain = Math.sqrt(speech / power(far, 0, far.length) / 10 ** (belowDb / 10));
    const mixed = signal.map((v, i) => v + gain * far[(i + 3 * RATE) % far.length]!);
    return { signal: mixed, placed };
  }

  test("the near speaker's pause ends the utterance though the talk behind goes on", async () => {
    const { signal, placed } = await overTalk(20);
    // Without the level gate the VAD hears one utterance: the test's premise.
    const ungated = finals(await run(signal, { backgroundGapDb: null }));
    expect(ungated.filter((u) => u.end < placed[1]!.onset)).toEqual([]);
    const gated = finals(await run(signal));
    const first = gated.find((u) => u.end > placed[0]!.offset - 0.1);
    expect(first?.reason).toBe("endpointing");
    expect(first!.end).toBeLessThan(placed[0]!.offset + 1);
    // The near speaker's second turn is in an utterance that ends at its own pause.
    const second = gated.find((u) => u.end > placed[1]!.offset - 0.1)!;
    expect(second.start).toBeLessThan(placed[1]!.onset);
    expect(second.end).toBeLessThan(placed[1]!.offset + 1);
  });

  test("a word's soft ending stays in the utterance when the level gate starts the silence", async () => {
    // leopard_diarization_test.wav opens with "and so it begins": its final "s" runs on 25–35 dB
    // below the speaker while Silero still scores speech (cut before it, both models read "began").
    const x = await load("leopard_diarization_test.wav");
    const first = finals(await run(x.subarray(0, 5 * RATE)))[0]!;
    const hop = RATE / 100;
    const rms = (k: number) => Math.sqrt(x.subarray(k * hop, (k + 1) * hop).reduce((s, v) => s + v * v, 0) / hop);
    const frames = Array.from({ length: Math.floor(first.end * 100) + 50 }, (_, k) => rms(k));
    const loudest = Math.max(...frames);
    const soundEnd = (frames.findLastIndex((r) => r > 0.03 * loudest) + 1) / 100;
    expect(soundEnd).toBeGreaterThan(3.5);
    expect(first.end).toBeGreaterThanOrEqual(soundEnd);
  });

  test("talk as loud as the speaker is not gated: one utterance, as the VAD hears it", async () => {
    const { signal, placed } = await overTalk(3);
    const gated = finals(await run(signal));
    expect(gated.filter((u) => u.end < placed[1]!.onset)).toEqual([]);
  });
});
