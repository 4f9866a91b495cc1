import { describe, expect, test } from "bun:test";
import path from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { BatchedVad } from "../../workers/engines/vad/batched.ts";
import { SileroVad } from "../../workers/engines/vad/silero.ts";
import { createEndpointer } from "./endpointer.ts";
import type { EndpointerEvent } from "./endpointer-types.ts";

const SHARED = path.resolve(import.meta.dir, "../../../shared");
const MODEL = path.join(process.env.MODELS_DIR ?? path.join(SHARED, "models"), "silero-vad/silero_vad.onnx");
const audio = (name: string) => readWavFile(path.join(SHARED, "audio", name)).samples;

const single = await SileroVad.load(MODEL);
const batched = await BatchedVad.load(MODEL);

/** Events of the endpointer over `samples`, pushed in 100 ms pieces without waiting. */
async function events(vad: SileroVad | BatchedVad, samples: Float32Array): Promise<EndpointerEvent[]> {
  const ep = createEndpointer(vad.createStream(16000), { partialIntervalMs: 500 });
  const out: EndpointerEvent[] = [];
  const pushes: Promise<EndpointerEvent[]>[] = [];
  for (let o = 0; o < samples.length; o += 1600) pushes.push(ep.push(samples.subarray(o, o + 1600)));
  for (const p of pushes) out.push(...(await p));
  out.push(...(await ep.flush()));
  return out;
}

const summary = (es: EndpointerEvent[]) => es.map((e) => ("time" in e ? [e.type, e.time] : [e.type, e.start, e.end, e.audio.length]));

describe("endpointer over the batched VAD (worker thread, streams batched)", () => {
  test("the same speech events as per-session VAD on real speech, with sessions side by side", async () => {
    const clip = audio("silero_en.wav").subarray(0, 16000 * 20);
    const ref = summary(await events(single, clip));
    expect(ref.filter((e) => e[0] === "utterance_final").length).toBeGreaterThan(1);
    const runs = await Promise.all([0, 1, 2, 3].map(() => events(batched, clip)));
    for (const r of runs) expect(summary(r)).toEqual(ref);
  }, 60_000);

});
