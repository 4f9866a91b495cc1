import { afterAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { readWavFile } from "../../dsp/wav.ts";
import type { VadStream } from "../../contract/vad.ts";
import { SileroVad } from "./silero.ts";

const SHARED = path.resolve(import.meta.dir, "../../../../shared");
const MODEL = path.join(process.env.MODELS_DIR ?? path.join(SHARED, "models"), "silero-vad/silero_vad.onnx");
const audio = async (name: string) => readWavFile(path.join(SHARED, "audio", name)).samples;

const vad = await SileroVad.load(MODEL);
afterAll(() => vad.close());

async function scores(stream: VadStream, x: Float32Array, maxFrames = Infinity): Promise<number[]> {
  const n = stream.frameSamples;
  const out: number[] = [];
  for (let i = 0; i + n <= x.length && out.length < maxFrames; i += n) out.push(await stream.process(x.subarray(i, i + n)));
  return out;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("Silero VAD", () => {
  test("speech (silero_en.wav, first 20 s) scores high", async () => {
    const p = await scores(vad.createStream(16000), await audio("silero_en.wav"), 625);
    expect(p).toHaveLength(625);
    expect(Math.max(...p)).toBeGreaterThan(0.95);
    expect(p.filter((x) => x >= 0.5).length / p.length).toBeGreaterThan(0.4);
    for (const x of p) expect(x >= 0 && x <= 1).toBe(true);
  });

  test("no speech (leopard_empty.wav) stays low", async () => {
    const p = await scores(vad.createStream(16000), await audio("leopard_empty.wav"));
    expect(p.length).toBe(256);
    expect(Math.max(...p)).toBeLessThan(0.5);
    expect(mean(p)).toBeLessThan(0.1);
  });

  test("a spoken letter rises and falls: silence, speech, silence", async () => {
    const p = await scores(vad.createStream(16000), await audio("spelling/a.wav"));
    expect(p.length).toBe(31);
    expect(Math.max(...p.slice(0, 4))).toBeLessThan(0.2); // leading silence
    expect(Math.min(...p.slice(9, 20))).toBeGreaterThan(0.9); // the vowel
    expect(Math.max(...p.slice(25))).toBeLessThan(0.2); // trailing silence
  });

  test("8 kHz streams use 256-sample chunks and detect telephone-rate speech", async () => {
    const s = vad.createStream(8000);
    expect(s.frameSamples).toBe(256);
    const p = await scores(s, await audio("OSR_us_000_0034_8k.wav"), 312); // ~10 s
    expect(Math.max(...p)).toBeGreaterThan(0.95);
    expect(p.filter((x) => x >= 0.5).length / p.length).toBeGreaterThan(0.3);
  });

  test("streams are independent and calls keep their order without awaiting", async () => {
    const speech = (await audio("jfk.wav")).subarray(0, 16000 * 3);
    const empty = (await audio("leopard_empty.wav")).subarray(0, 16000 * 3);
    const refSpeech = await scores(vad.createStream(), speech);
    const refEmpty = await scores(vad.createStream(), empty);
    const a = vad.createStream();
    const b = vad.createStream();
    const pa: Promise<number>[] = [];
    const pb: Promise<number>[] = [];
    for (let i = 0; i + 512 <= speech.length; i += 512) {
      pa.push(a.process(speech.subarray(i, i + 512)));
      pb.push(b.process(empty.subarray(i, i + 512)));
    }
    const [ga, gb] = await Promise.all([Promise.all(pa), Promise.all(pb)]);
    expect(ga).toEqual(refSpeech);
    expect(gb).toEqual(refEmpty);
    // State and context carry over: a chunk scored cold differs from the same chunk mid-stream.
    const k = 40;
    const cold = await vad.createStream().process(speech.subarray(k * 512, (k + 1) * 512));
    expect(Math.abs(cold - refSpeech[k]!)).toBeGreaterThan(1e-3);
  });

  test("reset returns a stream to its initial state", async () => {
    const x = (await audio("jfk.wav")).subarray(0, 16000);
    const s = vad.createStream();
    const first = await scores(s, x);
    s.reset();
    expect(await scores(s, x)).toEqual(first);
  });

  test("bad input is rejected clearly", async () => {
    const s = vad.createStream();
    await expect(s.process(new Float32Array(256))).rejects.toThrow(/512 samples/);
    expect(await s.process(new Float32Array(512))).toBeLessThan(0.5); // still usable
    expect(() => vad.createStream(44100 as 16000)).toThrow(/16000 or 8000/);
    await expect(SileroVad.load(path.join(SHARED, "models/nope.onnx"))).rejects.toThrow(/cannot load Silero VAD/);
  });
});
