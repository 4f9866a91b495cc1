/** The speaker encoder (converted from the Resemblyzer wheel) and online clustering, on real three-speaker audio. */
import { beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import path from "node:path";
import { readWavFile } from "../../dsp/wav.ts";
import { speakerModelPath } from "../../../test/helpers/addon-models.ts";
import { sharedAudio, sharedModels } from "../../../test/helpers/server.ts";
import { DEFAULT_SPEAKER_THRESHOLD, OnlineSpeakerClustering } from "./cluster.ts";
import { cosine, partialStarts, SpeakerEncoder } from "./encoder.ts";
import { SpeakerEncoderThread } from "./thread.ts";

// Real models on a shared machine: allow for a loaded CPU.
setDefaultTimeout(60_000);

/** leopard_diarization_test.wav: speaker 1 says one phrase, speakers 2 and 3 two stretches each (times from its levels). */
const SEGMENTS: [number, number, number][] = [[1.7, 3.8, 0], [6.2, 8.6, 1], [8.6, 11.0, 1], [12.8, 15.5, 2], [15.5, 19.3, 2]];
let encoder: SpeakerEncoder;
let prints: Float32Array[];
beforeAll(async () => {
  encoder = await SpeakerEncoder.load(await speakerModelPath());
  const audio = readWavFile(path.join(sharedAudio, "leopard_diarization_test.wav")).samples;
  prints = [];
  for (const [s, e] of SEGMENTS) prints.push(await encoder.embed(audio.subarray(s * 16000, e * 16000)));
}, 120_000);

describe("speaker encoder", () => {
  test("voice prints are unit vectors; the same speaker scores above the threshold, different speakers below", () => {
    for (const p of prints) {
      expect(p.length).toBe(256);
      expect(cosine(p, p)).toBeCloseTo(1, 4);
    }
    for (let i = 0; i < prints.length; i++) {
      for (let j = i + 1; j < prints.length; j++) {
        const sim = cosine(prints[i]!, prints[j]!);
        if (SEGMENTS[i]![2] === SEGMENTS[j]![2]) expect(sim).toBeGreaterThan(DEFAULT_SPEAKER_THRESHOLD);
        else expect(sim).toBeLessThan(DEFAULT_SPEAKER_THRESHOLD - 0.05);
      }
    }
  });

  test("partial windows follow upstream: 1.6 s at 1.3 per second, a short last one dropped", () => {
    expect(partialStarts(16000)).toEqual([0]); // shorter than one window: one zero-padded window
    expect(partialStarts(16000 * 3)).toEqual([0, 77, 154]);
    expect(partialStarts(16000 * 2.4)).toEqual([0, 77]); // a third window would cover under 75 %
    expect(partialStarts(16000 * 1.6)).toEqual([0]);
  });

  test("a model that is not the speaker encoder is refused clearly", async () => {
    await expect(SpeakerEncoder.load(path.join(sharedModels, "silero-vad/silero_vad.onnx"))).rejects.toThrow(/not a speaker encoder/);
    await expect(SpeakerEncoderThread.load(path.join(sharedModels, "silero-vad/silero_vad.onnx"))).rejects.toThrow(/not a speaker encoder/);
  });

  test("in a thread of its own: the same voice prints, in call order, and the caller keeps its audio", async () => {
    const threaded = await SpeakerEncoderThread.load(await speakerModelPath());
    try {
      const audio = readWavFile(path.join(sharedAudio, "leopard_diarization_test.wav")).samples;
      const pieces = SEGMENTS.map(([s, e]) => audio.subarray(s * 16000, e * 16000));
      const there = await Promise.all(pieces.map((p) => threaded.embed(p)));
      expect(there).toEqual(prints);
      // A 1-ms timer keeps firing while the thread embeds (in this thread a session run holds the loop).
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      const t0 = performance.now();
      await Promise.all([...pieces, ...pieces].map((p) => threaded.embed(p)));
      const elapsed = performance.now() - t0;
      clearInterval(timer);
      expect(ticks).toBeGreaterThan(Math.min(20, elapsed / 10));
      expect(pieces.every((p) => p.length > 0)).toBe(true);
      await expect(threaded.embed(new Float32Array(0))).rejects.toThrow(/empty utterance/);
    } finally {
      await threaded.release();
    }
    await expect(threaded.embed(audioOf(1))).rejects.toThrow(/released/);
  });
});

const audioOf = (seconds: number) => new Float32Array(seconds * 16000).fill(0.1);

describe("online clustering", () => {
  const run = (opts: Partial<ConstructorParameters<typeof OnlineSpeakerClustering>[0]>) => {
    const c = new OnlineSpeakerClustering({ threshold: DEFAULT_SPEAKER_THRESHOLD, ...opts });
    return prints.map((p, i) => c.assign(p, SEGMENTS[i]![1] - SEGMENTS[i]![0]));
  };
  test("three speakers found in order of appearance", () => {
    expect(run({})).toEqual([0, 1, 1, 2, 2]);
  });
  test("max_speakers and number_of_speakers cap the speakers; the closest one takes the rest", () => {
    const two = run({ maxSpeakers: 2 });
    expect(two.slice(0, 3)).toEqual([0, 1, 1]);
    expect(new Set(two).size).toBe(2);
    expect(run({ numberOfSpeakers: 1, maxSpeakers: 4 })).toEqual([0, 0, 0, 0, 0]);
  });
  test("a short utterance does not start a new speaker", () => {
    const c = new OnlineSpeakerClustering({ threshold: DEFAULT_SPEAKER_THRESHOLD });
    expect(c.assign(prints[0]!, 2)).toBe(0);
    expect(c.assign(prints[1]!, 0.3)).toBe(0);
    expect(c.assign(prints[2]!, 2.4)).toBe(1);
  });
});
