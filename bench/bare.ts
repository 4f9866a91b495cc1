/**
 * The bare models on the benchmark's audio, alone with onnxruntime-node: Silero on every 32 ms chunk
 * (batch 1, preallocated tensors) and the recognizer's own `InferenceSession.run` calls for each
 * segment, prompted with `prompts[i]` (the text before it) as the service prompts it (captured from
 * one engine call, then replayed and timed). Prints one JSON line:
 * `{ vad_cpu_s, asr_cpu_s, audio_s, runs }` per pass over the audio.
 *
 * Usage: bun bench/bare.ts '<json: { modelsDir, clips, segments: [[startS, endS]...], prompts?, passes }>'
 */
import path from "node:path";
import * as ort from "onnxruntime-node";
import { servingEntries } from "../workers/catalogue/capabilities.ts";
import { loadEngine } from "../workers/engines/registry.ts";
import type { EngineFamily } from "../workers/engines/types.ts";
import { benchSamples, RATE } from "./lib/audio.ts";

const args = JSON.parse(process.argv[2]!) as { modelsDir: string; clips: string[]; segments: [number, number][]; prompts?: string[]; passes: number; model: string };
const audio = benchSamples(args.clips);

type RunFn = ort.InferenceSession["run"];
const proto = (ort.InferenceSession as unknown as { prototype: { run: RunFn } }).prototype;
const originalRun = proto.run as (this: ort.InferenceSession, feeds: ort.InferenceSession.FeedsType) => ReturnType<RunFn>;
let capture: { session: ort.InferenceSession; feeds: ort.InferenceSession.FeedsType }[] | null = null;
proto.run = function (this: ort.InferenceSession, feeds: ort.InferenceSession.FeedsType, ...rest: unknown[]) {
  capture?.push({ session: this, feeds });
  return (originalRun as (...a: unknown[]) => ReturnType<RunFn>).call(this, feeds, ...rest);
} as RunFn;

const cpu = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

// Silero, one stream, every chunk.
const vad = await ort.InferenceSession.create(path.join(args.modelsDir, "silero-vad", "silero_vad.onnx"), {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: "sequential",
  graphOptimizationLevel: "all",
});
const input = new Float32Array(64 + 512);
const state = new Float32Array(256);
const feeds = {
  input: new ort.Tensor("float32", input, [1, 576]),
  state: new ort.Tensor("float32", state, [2, 1, 128]),
  sr: new ort.Tensor("int64", BigInt64Array.from([16000n]), []),
};
async function vadPass(): Promise<void> {
  input.fill(0);
  state.fill(0);
  for (let o = 0; o + 512 <= audio.length; o += 512) {
    input.copyWithin(0, 512, 576);
    input.set(audio.subarray(o, o + 512), 64);
    const out = await originalRun.call(vad, feeds);
    state.set(out.stateN!.data as Float32Array);
  }
}
await vadPass(); // warm-up
// At least 10 passes: one is about 0.1 s of CPU, and the gateway's key subtracts it.
const vadPasses = Math.max(10, args.passes);
let t = process.cpuUsage();
for (let i = 0; i < vadPasses; i++) await vadPass();
const vadCpu = cpu(t) / vadPasses;

// The recognizer serving the benchmark's model, its runs per segment.
const serving = servingEntries(args.modelsDir).find((s) => s.model.model === args.model);
if (!serving) throw new Error(`no installed engine serves ${args.model} in ${args.modelsDir}`);
const { entry } = serving;
const engine = await loadEngine(entry.family as EngineFamily, path.join(args.modelsDir, entry.dir), { name: entry.id, threads: 1, options: entry.options });
const segments = args.segments.map(([s, e]) => audio.slice(Math.max(0, Math.round(s * RATE)), Math.min(audio.length, Math.round(e * RATE))));
// Each segment prompted as the service prompts it (the text of the finals before it).
const request = (i: number) => ({ audio: segments[i]!, partial: false, ...(args.prompts?.[i] ? { previousText: args.prompts[i] } : {}) });
for (let i = 0; i < segments.length; i++) await engine.transcribe(request(i)); // warm-up
capture = [];
for (let i = 0; i < segments.length; i++) await engine.transcribe(request(i));
const calls = capture;
capture = null;
t = process.cpuUsage();
for (let i = 0; i < args.passes; i++) for (const c of calls) await originalRun.call(c.session, c.feeds);
const asrCpu = cpu(t) / args.passes;
await engine.dispose();
console.log(JSON.stringify({ vad_cpu_s: vadCpu, asr_cpu_s: asrCpu, audio_s: audio.length / RATE, runs: calls.length, engine: entry.id }));
process.exit(0);
