/**
 * Engine overhead benchmark: for each available engine, CPU-seconds per audio-second of the
 * whole engine call versus the bare `InferenceSession.run` calls it makes, replayed on the same
 * inputs. Usage: `bun bench/engines/run.ts [iterations]` (MODELS_DIR defaults to ../shared/models).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as ort from "onnxruntime-node";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { loadEngine } from "../../workers/engines/registry.ts";
import type { Engine, EngineFamily } from "../../workers/engines/types.ts";

const ROOT = resolve(import.meta.dir, "../..");
const MODELS_DIR = resolve(process.env.MODELS_DIR ?? join(ROOT, "../shared/models"));
const AUDIO_DIR = resolve(ROOT, "../shared/audio");
const ITERATIONS = Number(process.argv[2] ?? 20);

type RunFn = ort.InferenceSession["run"];
interface Captured {
  session: ort.InferenceSession;
  feeds: ort.InferenceSession.FeedsType;
}

const proto = (ort.InferenceSession as unknown as { prototype: { run: RunFn } }).prototype;
const originalRun = proto.run;
let capture: Captured[] | null = null;
proto.run = function (this: ort.InferenceSession, feeds: ort.InferenceSession.FeedsType, ...rest: unknown[]) {
  capture?.push({ session: this, feeds });
  return (originalRun as (...a: unknown[]) => ReturnType<RunFn>).call(this, feeds, ...rest);
} as RunFn;

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
}

interface Case {
  label: string;
  family: EngineFamily;
  dir: string;
  clips: Float32Array[];
  options?: Record<string, unknown>;
}

async function measure(c: Case): Promise<void> {
  let engine: Engine;
  try {
    engine = await loadEngine(c.family, c.dir, { name: c.label, threads: 1, options: c.options });
  } catch (err) {
    console.log(`${c.label.padEnd(30)} skipped: ${(err as Error).message}`);
    return;
  }
  const audioSeconds = (ITERATIONS * c.clips.reduce((s, a) => s + a.length, 0)) / engine.info.sampleRate;
  for (const audio of c.clips) await engine.transcribe({ audio, partial: false }); // warm-up
  capture = [];
  const t0 = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) for (const audio of c.clips) await engine.transcribe({ audio, partial: false });
  const engineCpu = cpuSeconds(t0);
  const calls = capture;
  capture = null;
  const t1 = process.cpuUsage();
  const bareRun = originalRun as (this: ort.InferenceSession, feeds: ort.InferenceSession.FeedsType) => ReturnType<RunFn>;
  for (const call of calls) await bareRun.call(call.session, call.feeds);
  const bareCpu = cpuSeconds(t1);
  await engine.dispose();
  const rtf = (x: number) => (x / audioSeconds).toFixed(5);
  console.log(
    `${c.label.padEnd(30)} audio ${audioSeconds.toFixed(1).padStart(6)} s  runs ${String(calls.length).padStart(5)}  ` +
      `engine ${rtf(engineCpu)} cpu-s/audio-s  bare run ${rtf(bareCpu)} cpu-s/audio-s  ratio ${(engineCpu / bareCpu).toFixed(2)}`,
  );
}

const spelling = ["a", "b", "c", "zero", "double_u"].map((n) => readWavFile(join(AUDIO_DIR, "spelling", `${n}.wav`)).samples);
const speech = readWavFile(join(AUDIO_DIR, "jfk.wav")).samples;
const cases: Case[] = [
  { label: "moonshine-micro-spelling", family: "isolated-token", dir: join(MODELS_DIR, "moonshine-micro"), clips: spelling },
  { label: "moonshine-micro-spelling-int8", family: "isolated-token", dir: join(MODELS_DIR, "moonshine-micro"), clips: spelling, options: { preferQuantized: true } },
];

let fixtureRoot: string | null = null;
try {
  const { buildFixtures } = (await import(new URL("../../workers/fixtures/build.ts", import.meta.url).href)) as {
    buildFixtures: (root: string) => { whisperBase: string; zipformer: string };
  };
  fixtureRoot = mkdtempSync(join(tmpdir(), "bench-fixtures-"));
  const built = buildFixtures(fixtureRoot);
  cases.push(
    { label: "whisper-base (fixture)", family: "whisper", dir: built.whisperBase, clips: [speech.subarray(0, 16000 * 5)] },
    { label: "zipformer (fixture)", family: "transducer", dir: built.zipformer, clips: [speech.subarray(0, 16000 * 5)] },
  );
} catch (err) {
  console.log(`fixture engines skipped: ${(err as Error).message}`);
}

console.log(`engine overhead, ${ITERATIONS} iterations, one onnxruntime thread, MODELS_DIR=${MODELS_DIR}`);
try {
  for (const c of cases) await measure(c);
} finally {
  if (fixtureRoot) rmSync(fixtureRoot, { recursive: true, force: true });
}
