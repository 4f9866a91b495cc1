import { afterAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { readWavFile } from "../../dsp/wav.ts";
import { BatchedVad } from "./batched.ts";
import { SileroVad } from "./silero.ts";

const SHARED = path.resolve(import.meta.dir, "../../../../shared");
const MODEL = path.join(SHARED, "models/silero-vad/silero_vad.onnx");
const audio = (name: string) => readWavFile(path.join(SHARED, "audio", name)).samples;

const single = await SileroVad.load(MODEL);
const batched = await BatchedVad.load(MODEL);
afterAll(() => single.close());

describe("batched Silero VAD in a worker thread", () => {
  test("scores every chunk exactly as the per-stream VAD, for streams running together", async () => {
    const clips = [audio("silero_en.wav"), audio("jfk.wav"), audio("leopard_empty.wav")].map((c) => c.subarray(0, 512 * 200));
    const ref = await Promise.all(clips.map((c) => single.createStream().processMany(c)));
    const streams = clips.map(() => batched.createStream());
    // Pieces of uneven sizes, interleaved across the streams, so ticks mix streams and chunk counts.
    const got: Float32Array[] = clips.map((c) => new Float32Array(c.length / 512));
    const jobs: Promise<void>[] = [];
    for (let k = 0, step = 1; k < 200; k += step, step = (step % 5) + 1) {
      streams.forEach((s, i) => {
        const n = Math.min(step, 200 - k);
        const at = k;
        jobs.push(s.processMany(clips[i]!.subarray(at * 512, (at + n) * 512)).then((p) => got[i]!.set(p, at)));
      });
    }
    await Promise.all(jobs);
    for (let i = 0; i < clips.length; i++) expect(Array.from(got[i]!)).toEqual(Array.from(ref[i]!));
    expect(batched.stats.inferences).toBeLessThan(batched.stats.chunks);
  });

  test("a closed stream's slot is reused from a clean state", async () => {
    const clip = audio("silero_en.wav").subarray(0, 512 * 40);
    const a = batched.createStream();
    const first = await a.processMany(clip);
    a.close();
    await expect(a.processMany(clip)).rejects.toThrow(/closed/);
    await batched.createStream().processMany(clip.subarray(0, 512)); // a tick releases the slot
    const b = batched.createStream();
    expect(Array.from(await b.processMany(clip))).toEqual(Array.from(first));
  });

  test("closed streams hold no slot, also when closed with chunks still to score", async () => {
    const clip = audio("silero_en.wav").subarray(0, 512 * 8);
    const before = batched.slotsHeld;
    const streams = Array.from({ length: 6 }, () => batched.createStream());
    expect(batched.slotsHeld).toBe(before + 6);
    await Promise.all(streams.slice(0, 3).map((s) => s.processMany(clip)));
    const waiting = streams.slice(3).map((s) => s.processMany(clip));
    for (const s of streams.slice(0, 3)) s.close();
    expect(batched.slotsHeld).toBe(before + 3); // nothing left to score: freed at once, no tick needed
    for (const s of streams.slice(3)) s.close();
    await Promise.all(waiting); // scored, then freed
    expect(batched.slotsHeld).toBe(before);
  });

  test("a tick waits for the other active streams' chunks, but not when a chunk is urgent", async () => {
    const vad = await BatchedVad.load(MODEL, { windowMs: 400 });
    const [a, b] = [vad.createStream(), vad.createStream()];
    const chunk = audio("jfk.wav").subarray(0, 512);
    await Promise.all([a.processMany(chunk), b.processMany(chunk)]); // both active
    const timed = async (p: Promise<unknown>) => ((t) => p.then(() => performance.now() - t))(performance.now());
    const waited = await timed(a.processMany(chunk));
    expect(waited).toBeGreaterThan(300); // held for b, which sent nothing
    await b.processMany(chunk); // b active again
    const urgent = await timed(a.processMany(chunk, true));
    expect(urgent).toBeLessThan(200);
    a.close();
    b.close();
  });

  test("rejects chunks of the wrong size and other rates", async () => {
    const s = batched.createStream();
    await expect(s.processMany(new Float32Array(100))).rejects.toThrow(/multiple of 512/);
    await expect(s.process(new Float32Array(1024))).rejects.toThrow(/512 samples/);
    expect(() => batched.createStream(8000)).toThrow(/16000 Hz/);
  });

  test("a model that is not Silero is refused with a clear error", async () => {
    await expect(BatchedVad.load(path.join(SHARED, "models/nope.onnx"))).rejects.toThrow(/cannot load Silero VAD/);
  });
});
