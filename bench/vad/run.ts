/**
 * `bun bench/vad/run.ts [streams=2] [seconds=20]`: the batched VAD's thread at real time against
 * bare Silero on the same chunks. `streams` sessions send the benchmark audio in 100 ms frames,
 * 37 ms apart (as `bun run bench` does), through `BatchedVad`; the `vad` thread's CPU per
 * audio-second (from /proc, ns) is compared with Silero run back to back, batch 1, in this process
 * before (`SileroVad`, the same runs `bench/bare.ts` times). Prints one JSON line.
 */
import path from "node:path";
import { BatchedVad } from "../../workers/engines/vad/batched.ts";
import { SileroVad } from "../../workers/engines/vad/silero.ts";
import { benchSamples, DEFAULT_CLIPS, RATE } from "../lib/audio.ts";
import { loadAverage, threadCpu } from "../lib/proc.ts";

const streams = Number(process.argv[2] ?? 2);
const seconds = Number(process.argv[3] ?? 20);
const model = path.join(process.env.MODELS_DIR ?? path.resolve(import.meta.dir, "../../models"), "silero-vad/silero_vad.onnx");
const clip = benchSamples(DEFAULT_CLIPS.slice(0, 6));
const FRAME = 1600;
const CHUNK = 512;
/** Whole 512-sample chunks of `seconds` of the looped audio. */
const total = Math.floor((seconds * RATE) / CHUNK) * CHUNK;
const audio = new Float32Array(total);
for (let o = 0; o < total; o += clip.length) audio.set(clip.subarray(0, Math.min(clip.length, total - o)), o);

// Bare: back to back, batch 1, warm.
const bare = await SileroVad.load(model);
const warm = bare.createStream();
await warm.processMany(audio.subarray(0, 100 * CHUNK));
const c0 = process.cpuUsage();
await bare.createStream().processMany(audio);
const c1 = process.cpuUsage(c0);
const bareCpu = (c1.user + c1.system) / 1e6;
await bare.close();

const vadCpu = () => {
  let s = 0;
  for (const t of threadCpu(process.pid).values()) if (t.name === "vad") s += t.cpu;
  return s;
};
const mainCpu = () => threadCpu(process.pid).get(String(process.pid))?.cpu ?? 0;
const batched = await BatchedVad.load(model);
await batched.createStream().processMany(audio.subarray(0, 100 * CHUNK));
const s0 = { ...batched.stats };
const v0 = vadCpu();
const m0 = mainCpu();

/** One stream: frames of 100 ms at real time; chunks of 512 to the VAD as the endpointer cuts them. */
async function stream(delayMs: number): Promise<void> {
  await Bun.sleep(delayMs);
  const vad = batched.createStream();
  const t0 = performance.now();
  let held = 0;
  const jobs: Promise<unknown>[] = [];
  for (let i = 0; (i + 1) * FRAME <= total; i++) {
    const wait = t0 + (i + 1) * 100 - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    const end = Math.floor(((i + 1) * FRAME) / CHUNK) * CHUNK;
    if (end > held) jobs.push(vad.processMany(audio.slice(held, end)));
    held = end;
  }
  await Promise.all(jobs);
  vad.close();
}
await Promise.all(Array.from({ length: streams }, (_, i) => stream((i * 37) % 100)));
const vad = vadCpu() - v0;
const main = mainCpu() - m0;
const audioS = (streams * total) / RATE;
const ticks = batched.stats.ticks - s0.ticks;
const inferences = batched.stats.inferences - s0.inferences;
console.log(
  JSON.stringify({
    streams,
    audio_s: audioS,
    vad_thread_ms_per_audio_s: Math.round((vad / audioS) * 1e5) / 100,
    bare_ms_per_audio_s: Math.round((bareCpu / (total / RATE)) * 1e5) / 100,
    ratio: Math.round((vad / audioS / (bareCpu / (total / RATE))) * 100) / 100,
    main_thread_ms_per_audio_s: Math.round((main / audioS) * 1e5) / 100,
    ticks_per_audio_s: Math.round((ticks / audioS) * 10) / 10,
    inferences_per_audio_s: Math.round((inferences / audioS) * 10) / 10,
    load: loadAverage(),
  }),
);
process.exit(0);
