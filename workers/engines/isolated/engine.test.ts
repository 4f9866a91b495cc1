import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readWavFile } from "../../dsp/wav.ts";
import { IsolatedTokenEngine, readIsolatedTokenMeta, softmax } from "./engine.ts";
import { speechBounds } from "./energy.ts";

const SHARED = resolve(import.meta.dir, "../../../../shared");
const MODEL_DIR = resolve(process.env.MODELS_DIR ?? resolve(SHARED, "models"), "moonshine-micro");
const clip = (name: string) => readWavFile(resolve(SHARED, "audio/spelling", `${name}.wav`)).samples;

let engine: IsolatedTokenEngine;
beforeAll(async () => {
  engine = await IsolatedTokenEngine.load(MODEL_DIR);
});
afterAll(async () => {
  await engine.dispose();
});

describe("isolated-token engine", () => {
  test("describes itself", () => {
    expect(engine.info).toMatchObject({ family: "isolated-token", languages: ["en"], streaming: false, sampleRate: 16000 });
    expect(engine.modelPath.endsWith("spelling_cnn_mel.onnx")).toBe(true);
    expect(engine.classes.length).toBe(51);
  });

  for (const [file, token] of [["a", "a"], ["b", "b"], ["c", "c"], ["zero", "zero"], ["double_u", "w"]]) {
    test(`${file}.wav is read as "${token}"`, async () => {
      const audio = clip(file);
      const r = await engine.transcribe({ audio, partial: false });
      expect(r.text).toBe(token);
      expect(r.noSpeech).toBe(false);
      expect(r.language).toBe("en");
      expect(r.confidence).toBeGreaterThan(0.5);
      expect(r.words).toHaveLength(1);
      const [w] = r.words;
      expect(w.word).toBe(token);
      expect(w.start).toBeGreaterThanOrEqual(0);
      expect(w.end).toBeGreaterThan(w.start);
      expect(w.end).toBeLessThanOrEqual(audio.length / 16000);
    });
  }

  test("a segment that opens with a long pause is still read, with timings after the pause", async () => {
    const audio = clip("c");
    const padded = new Float32Array(audio.length + 16000);
    padded.set(audio, 16000);
    const r = await engine.transcribe({ audio: padded, partial: false });
    expect(r.text).toBe("c");
    expect(r.words[0].start).toBeGreaterThan(1);
  });

  test("silence is reported as no speech", async () => {
    const r = await engine.transcribe({ audio: new Float32Array(16000), partial: false });
    expect(r).toEqual({ text: "", language: "en", confidence: 0, words: [], noSpeech: true });
    expect((await engine.transcribe({ audio: new Float32Array(0), partial: true })).noSpeech).toBe(true);
  });

  test("the int8 model is used when asked for and agrees on a clip", async () => {
    const q = await IsolatedTokenEngine.load(MODEL_DIR, { preferQuantized: true });
    try {
      expect(q.modelPath.endsWith("spelling_cnn_mel.shrunk.onnx")).toBe(true);
      expect((await q.transcribe({ audio: clip("zero"), partial: false })).text).toBe("zero");
    } finally {
      await q.dispose();
    }
  });

  test("rejects audio that is not float32", async () => {
    await expect(engine.transcribe({ audio: [0.1, 0.2] as unknown as Float32Array, partial: false })).rejects.toThrow(TypeError);
  });
});

describe("loading errors", () => {
  test("a directory without the model or meta fails clearly", async () => {
    const dir = mkdtempSync(join(tmpdir(), "iso-"));
    try {
      await expect(IsolatedTokenEngine.load(dir)).rejects.toThrow(/spelling_cnn_meta\.json/);
      writeFileSync(join(dir, "spelling_cnn_meta.json"), JSON.stringify({ classes: ["a"] }));
      await expect(IsolatedTokenEngine.load(dir)).rejects.toThrow(/no spelling_cnn_mel\.onnx/);
      writeFileSync(join(dir, "spelling_cnn_meta.json"), JSON.stringify({ classes: [] }));
      expect(() => readIsolatedTokenMeta(dir)).toThrow(/classes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("helpers", () => {
  test("softmax sums to one and keeps order", () => {
    const p = softmax([1000, 1001, 999]);
    expect(p[0] + p[1] + p[2]).toBeCloseTo(1, 12);
    expect(p[1]).toBeGreaterThan(p[0]);
    expect(p[0]).toBeGreaterThan(p[2]);
  });
  test("speech bounds find a burst inside silence", () => {
    const audio = new Float32Array(16000);
    for (let i = 4000; i < 8000; i++) audio[i] = 0.3 * Math.sin(i / 5);
    const b = speechBounds(audio, { sampleRate: 16000 });
    expect(b.startSample).toBe(4000);
    expect(b.endSample).toBe(8000);
  });
});
