/** The Smart Turn model and the end-of-turn state machine, on the real model and real or synthesized speech. */
import { beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import path from "node:path";
import { readWavFile } from "../../dsp/wav.ts";
import { join16k, speak, turnModelPath } from "../../../test/helpers/addon-models.ts";
import { sharedAudio, sharedModels } from "../../../test/helpers/server.ts";
import { EndOfTurnDetector, type EndOfTurnSettings, type TurnEvent, type TurnScore, type TurnEnd } from "./detector.ts";
import { SmartTurn, TURN_WINDOW_SAMPLES, turnFeatures } from "./smart-turn.ts";
import { TurnModelThread } from "./thread.ts";

// Real models on a shared machine: allow for a loaded CPU.
setDefaultTimeout(60_000);

let model: SmartTurn;
let jfk: Float32Array;
let q1: Float32Array;
let q2: Float32Array;
beforeAll(async () => {
  model = await SmartTurn.load(await turnModelPath());
  jfk = readWavFile(path.join(sharedAudio, "jfk.wav")).samples;
  q1 = speak("What time does the train to London leave tomorrow morning?");
  q2 = speak("Could you tell me where the nearest pharmacy is?");
}, 120_000);

describe("Smart Turn model", () => {
  test("the end of a complete sentence scores high; the same speech cut mid-sentence scores low", async () => {
    expect(await model.predict(jfk)).toBeGreaterThan(0.7); // "... what you can do for your country."
    expect(await model.predict(jfk.subarray(0, 8 * 16000))).toBeLessThan(0.2); // "... ask what you can do for"
    expect(await model.predict(q1)).toBeGreaterThan(0.8);
    expect(await model.predict(q1.subarray(0, Math.floor(q1.length * 0.45)))).toBeLessThan(0.2);
  });

  test("features read the last 8 s, zero-padded at the start", () => {
    const short = q1.subarray(0, 32000);
    const padded = join16k((TURN_WINDOW_SAMPLES - short.length) / 16000, short);
    expect(padded.length).toBe(TURN_WINDOW_SAMPLES);
    expect(turnFeatures(short)).toEqual(turnFeatures(padded));
    const long = join16k(jfk, 2);
    expect(turnFeatures(long)).toEqual(turnFeatures(long.subarray(long.length - TURN_WINDOW_SAMPLES)));
    expect(turnFeatures(long)).not.toEqual(turnFeatures(long.subarray(0, TURN_WINDOW_SAMPLES)));
  });

  test("a model that is not Smart Turn is refused with a clear error", async () => {
    await expect(SmartTurn.load(path.join(sharedModels, "silero-vad/silero_vad.onnx"))).rejects.toThrow(/not a Smart Turn v3 model/);
    await expect(SmartTurn.load("/nonexistent.onnx")).rejects.toThrow(/cannot load the end-of-turn model/);
    await expect(TurnModelThread.load("/nonexistent.onnx")).rejects.toThrow(/cannot load the end-of-turn model/);
  });

  test("in a thread of its own: the same probabilities, in call order, and the event loop turns while it evaluates", async () => {
    const threaded = await TurnModelThread.load(await turnModelPath());
    try {
      const inputs = [jfk, jfk.subarray(0, 8 * 16000), q1, q1.subarray(0, Math.floor(q1.length * 0.45)), q2];
      const here: number[] = [];
      for (const a of inputs) here.push(await model.predict(a));
      // All asked at once: the answers come back matched to their calls.
      const there = await Promise.all(inputs.map((a) => threaded.predict(a)));
      expect(there).toEqual(here);
      // A 1-ms timer keeps firing during five evaluations (60–85 ms of CPU each); in this thread it
      // could not fire while a session run held the loop.
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      const t0 = performance.now();
      await Promise.all(inputs.map((a) => threaded.predict(a)));
      const elapsed = performance.now() - t0;
      clearInterval(timer);
      expect(ticks).toBeGreaterThan(Math.min(20, elapsed / 10));
      // Its owner's audio is not taken: the thread gets a copy.
      expect(jfk.length).toBeGreaterThan(0);
    } finally {
      await threaded.release();
    }
    await expect(threaded.predict(q1)).rejects.toThrow(/released/);
  });
});

const DEFAULTS: EndOfTurnSettings = { threshold: 0.6, silence_ms: 200, stop_s: 1.5, window_s: 2, speech_dbfs: -50, reeval_ms: 200 };

/** Streams audio through a detector in 100 ms pieces; returns its events and what each evaluation read. */
async function run(audio: Float32Array, over: Partial<EndOfTurnSettings> = {}, chunk = 1600) {
  const reads: number[] = [];
  const d = new EndOfTurnDetector(1, { ...DEFAULTS, ...over }, (a) => {
    reads.push(a.length);
    return model.predict(a);
  });
  const events: TurnEvent[] = [];
  for (let i = 0; i < audio.length; i += chunk) events.push(...(await d.push(audio.subarray(i, i + chunk), 10 + i / 16000)));
  const scores = events.filter((e): e is TurnScore => e.type === "score");
  const ends = events.filter((e): e is TurnEnd => e.type === "end");
  return { events, scores, ends, reads };
}

/** Seconds of q's audio up to its last sample above −50 dBFS-ish (espeak trails a little silence). */
function speechEnd(a: Float32Array): number {
  let last = 0;
  for (let i = 0; i < a.length; i++) if (Math.abs(a[i]!) > 0.003) last = i;
  return last / 16000;
}

describe("end-of-turn detector", () => {
  test("two questions 1.5 s apart end two turns by the model, each 200 ms into its silence", async () => {
    const audio = join16k(q1, 1.5, q2, 1.5);
    const { ends, scores } = await run(audio);
    expect(ends.map((e) => e.reason)).toEqual(["model", "model"]);
    const end1 = 10 + speechEnd(q1);
    const end2 = 10 + q1.length / 16000 + 1.5 + speechEnd(q2);
    expect(ends[0]!.end).toBeCloseTo(end1, 1);
    expect(ends[1]!.end).toBeCloseTo(end2, 1);
    for (const e of ends) {
      expect(e.channel).toBe(1);
      expect(e.probability!).toBeGreaterThan(0.6);
    }
    expect(ends[0]!.speech_duration).toBeGreaterThan(2.5);
    expect(ends[0]!.speech_duration).toBeLessThanOrEqual(speechEnd(q1) + 0.01);
    // the first evaluation of each silence comes silence_ms into it; the deciding one has ended: true
    expect(scores[0]!.silence_ms).toBe(200);
    expect(scores[0]!.time).toBeCloseTo(end1 + 0.2, 1);
    expect(scores.filter((s) => s.ended)).toHaveLength(2);
    expect(scores.every((s) => s.threshold === 0.6 && s.ended === s.probability > 0.6)).toBe(true);
  });

  test("silence_ms delays the first evaluation; window_s bounds the audio an evaluation reads", async () => {
    const { scores, reads } = await run(join16k(q1, 1.5), { silence_ms: 600, window_s: 1 });
    expect(scores[0]!.silence_ms).toBe(600);
    // window_s before the silence + the silence so far
    expect(reads[0]).toBe(Math.round((1 + 0.6) * 16000));
    const wide = await run(join16k(q1, 1.5), { window_s: 8 });
    // 8 s before the silence reaches back past the start of the stream: all the audio so far
    expect(wide.reads[0]).toBe(Math.round((wide.scores[0]!.time - 10) * 16000));
    expect(wide.reads[0]).toBeGreaterThan(reads[0]!);
  });

  test("below the threshold the silence is re-evaluated every reeval_ms until stop_s ends the turn by timeout", async () => {
    const { scores, ends } = await run(join16k(q1.subarray(0, Math.floor(q1.length * 0.45)), 2), {
      threshold: 0.99, stop_s: 1.0, reeval_ms: 250,
    });
    expect(scores.map((s) => s.silence_ms)).toEqual([200, 450, 700, 950]);
    expect(scores.every((s) => !s.ended)).toBe(true);
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({ reason: "timeout", probability: scores.at(-1)!.probability });
    const once = await run(join16k(q1.subarray(0, Math.floor(q1.length * 0.45)), 2), { threshold: 0.99, stop_s: 1.0, reeval_ms: 0 });
    expect(once.scores.map((s) => s.silence_ms)).toEqual([200]);
    expect(once.ends[0]!.reason).toBe("timeout");
  });

  test("speech_dbfs: audio under the level is silence, so quiet speech starts no turn", async () => {
    const quiet = q1.map((x) => x * 0.01); // about −40 dB below the original
    expect((await run(join16k(quiet, 1.5), { speech_dbfs: -30 })).events).toEqual([]);
    expect((await run(join16k(quiet, 1.5), { speech_dbfs: -80 })).ends).toHaveLength(1);
  });

  test("a burst shorter than 150 ms (a click) is no turn", async () => {
    const click = q1.subarray(Math.floor(q1.length / 3), Math.floor(q1.length / 3) + 1600); // 100 ms of speech
    expect((await run(join16k(1, click, 2))).events).toEqual([]);
  });

  test("speech that resumes within the silence keeps the turn open", async () => {
    const trimmed = q1.subarray(0, Math.ceil(speechEnd(q1) * 16000));
    const { ends } = await run(join16k(trimmed, 0.1, q2, 1.5));
    expect(ends).toHaveLength(1);
    expect(ends[0]!.speech_duration).toBeGreaterThan(5);
  });

  test("gated by voice activity: no turn without speech_start; speech_end dates the silence back", async () => {
    const audio = join16k(q1, 1.5);
    const gated = new EndOfTurnDetector(0, DEFAULTS, (a) => model.predict(a), { vadGated: true });
    expect(await gated.push(audio, 0)).toEqual([]);
    const d = new EndOfTurnDetector(0, DEFAULTS, (a) => model.predict(a), { vadGated: true });
    const cut = Math.floor(speechEnd(q1) * 16000);
    d.speechStart(0.1);
    const events = await d.push(audio.subarray(0, cut), 0);
    expect(events).toEqual([]);
    const end = speechEnd(q1);
    d.speechEnd(end - 0.3); // the detector's hang-over reported speech over 300 ms before the level did
    const rest = await d.push(audio.subarray(cut), cut / 16000);
    const e = rest.find((x): x is TurnEnd => x.type === "end")!;
    expect(e.end).toBeCloseTo(end - 0.3, 2);
    const first = rest.find((x): x is TurnScore => x.type === "score")!;
    expect(first.silence_ms).toBeGreaterThanOrEqual(300);
    expect(first.silence_ms).toBeLessThan(320);
  });
});
