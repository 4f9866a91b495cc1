/**
 * `bun run bench [-- --quick]`: the service against its baselines, side by side in one run (see
 * bench/README.md). Writes bench/results/<timestamp>.json, bench/results/latest.json and
 * bench/results/latest.svg; prints the JSON summary as its last line.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTRPCClient, httpLink } from "@trpc/client";
import type { Subprocess } from "bun";
import type { AdminRouter } from "../server/admin/router.ts";
import { benchSamples, DEFAULT_CLIPS, frames, RATE, toPcm16 } from "./lib/audio.ts";
import { chart } from "./lib/chart.ts";
import { align } from "./fidelity/metrics.ts";
import { fidelityWords } from "./fidelity/normalize.ts";
import { BENCH_REDIS_URL, dropPrefix, redisUnavailable, startWorker } from "./lib/distributed.ts";
import { whisperLivePython } from "./lib/whisperlive.ts";
import { openIdle, percentile, runStreams, type StreamResult, type Target } from "./lib/load.ts";
import { cpuSeconds, liveThreadsCpu, loadAverage, rssMb, threadCpu, threadDelta, wakeups } from "./lib/proc.ts";

const ROOT = path.resolve(import.meta.dir, "..");
const quick = process.argv.includes("--quick");
const MODELS_DIR = path.resolve(process.env.MODELS_DIR ?? path.join(ROOT, "models"));
const MODEL = process.env.BENCH_MODEL ?? "trantoria-1";
const CLIPS = quick ? DEFAULT_CLIPS.slice(0, 6) : DEFAULT_CLIPS;
const CPU_STREAMS = quick ? 2 : 4;
const RAMP = quick ? [1, 2, 4, 8, 16] : [1, 2, 4, 8, 16, 32, 48];
/** How long a real-time step may take to deliver its last finals after the audio ended. */
const DRAIN_MS = quick ? 12_000 : 60_000;
const IDLE_SESSIONS = quick ? 32 : 100;
const say = (s: string) => console.error(`[bench] ${s}`);

const pcm = toPcm16(benchSamples(CLIPS));
const audioFrames = frames(pcm);
const audioS = pcm.length / 2 / RATE;

async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, fetch: () => new Response() });
  const p = s.port!;
  s.stop(true);
  return p;
}

async function waitHttp(url: string, proc: Subprocess, limitMs = 60_000): Promise<void> {
  const deadline = performance.now() + limitMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not yet */
    }
    if (proc.exitCode !== null) throw new Error(`${url}: the process exited with ${proc.exitCode}`);
    if (performance.now() > deadline) throw new Error(`${url} did not answer within ${limitMs} ms`);
    await Bun.sleep(2);
  }
}

interface Service { proc: Subprocess; base: string; startupMs: number; dataDir: string; output: string[] }

async function startService(extraEnv: Record<string, string> = {}): Promise<Service> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "bench-data-"));
  const t0 = performance.now();
  const proc = Bun.spawn([process.execPath, path.join(ROOT, "server/main.ts")], {
    cwd: ROOT,
    // Admission off (CAPACITY_HEADROOM 0): the ramp finds how many streams the engines sustain,
    // which admission's estimate would otherwise cut short with 503s.
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, MODELS_DIR, ADMIN_TOKEN: "bench-admin", LOG_LEVEL: "error", CAPACITY_HEADROOM: "0", ...extraEnv },
    // Its error lines and any crash report, kept (beside DATA_DIR) to say why if it dies mid-bench.
    stdout: Bun.file(`${dataDir}.stdout`),
    stderr: Bun.file(`${dataDir}.stderr`),
  });
  children.push(proc);
  const base = `http://127.0.0.1:${port}`;
  await waitHttp(`${base}/health`, proc);
  const svc = { proc, base, startupMs: performance.now() - t0, dataDir, output: [`${dataDir}.stdout`, `${dataDir}.stderr`] };
  services.push(svc);
  // Scraped once, as Prometheus would: the process metrics (and their event-loop lag sampler) start
  // at the first scrape, and the measured steps run with them.
  const metrics = await fetch(`${base}/metrics`);
  if (!metrics.ok) throw new Error(`GET /metrics answered ${metrics.status}`);
  await metrics.text();
  return svc;
}

/** The service's RSS in MB; a service that is gone fails the bench with its exit status and last output. */
function serviceRss(svc: Service): number {
  if (svc.proc.exitCode !== null || svc.proc.signalCode !== null) {
    const tails = svc.output.filter(existsSync).map((f) => `── ${f}\n${readFileSync(f, "utf8").slice(-3000)}`);
    throw new Error(`the service exited during the bench (code ${svc.proc.exitCode}, signal ${svc.proc.signalCode}):\n${tails.join("\n")}`);
  }
  return rssMb(svc.proc.pid);
}

async function startEcho(): Promise<{ proc: Subprocess; wsUrl: string; startupMs: number }> {
  const t0 = performance.now();
  const proc = Bun.spawn([process.execPath, path.join(import.meta.dir, "echo.ts")], { stdout: "pipe", stderr: "ignore" });
  children.push(proc);
  const reader = proc.stdout.getReader();
  let text = "";
  while (!/ready \d+/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("echo server exited");
    text += new TextDecoder().decode(value);
  }
  const port = /ready (\d+)/.exec(text)![1];
  const wsUrl = `ws://127.0.0.1:${port}/`;
  await waitHttp(`http://127.0.0.1:${port}/`, proc);
  return { proc, wsUrl, startupMs: performance.now() - t0 };
}

async function stopProc(proc: Subprocess): Promise<void> {
  proc.kill("SIGTERM");
  const t = setTimeout(() => proc.kill("SIGKILL"), 10_000);
  await proc.exited;
  clearTimeout(t);
}

/**
 * The service's CPU by thread: `main` (the event loop: sockets, sessions, front end, endpointer,
 * delivery), `vad` (the batched Silero thread), `engine` (the recognizer's worker threads), `runtime`
 * (the rest: Bun's JIT, garbage collector and allocator threads, and threads that exited).
 */
type CpuSplit = { main: number; vad: number; engine: number; runtime: number };

/**
 * Bun's own threads by what they do, from their names: `jit` (JITWorker, JSCWarmUp), `gc`
 * (HeapHelper, the heap collector thread), `allocator` (mimalloc's scavenger), `pool` (Bun's thread
 * pool: file and other blocking I/O), `other` (any other name, and threads that exited).
 */
type RuntimeSplit = { jit: number; gc: number; allocator: number; pool: number; other: number };
function runtimeGroup(name: string): keyof RuntimeSplit {
  if (/^JIT|WarmUp/.test(name)) return "jit";
  if (/Heap|Collector/i.test(name)) return "gc";
  if (/scavenger|malloc/i.test(name)) return "allocator";
  if (/^Bun Pool/.test(name)) return "pool";
  return "other";
}

/** Runs `fn` and returns the CPU seconds `pid` spent meanwhile, split by thread, and the share of its busiest thread. */
async function cpuDuring<T>(pid: number, fn: () => Promise<T>): Promise<{ cpu: number; split: CpuSplit; runtime: RuntimeSplit; busiestShare: number; mainWakeups: number; value: T }> {
  const c0 = cpuSeconds(pid);
  const th0 = threadCpu(pid);
  const w0 = wakeups(pid);
  const value = await fn();
  const mainWakeups = wakeups(pid) - w0;
  const cpu = cpuSeconds(pid) - c0;
  const th1 = threadCpu(pid);
  let busiest = 0;
  for (const [tid, t] of th1) busiest = Math.max(busiest, t.cpu - (th0.get(tid)?.cpu ?? 0));
  const d = threadDelta(th0, th1, (name, tid) => (tid === String(pid) ? "main" : name === "vad" || name === "engine" ? name : runtimeGroup(name)));
  const main = d.main ?? 0;
  const vad = d.vad ?? 0;
  const engine = d.engine ?? 0;
  // `stat` counts exited threads too; what the live threads do not account for is the runtime's.
  const split = { main, vad, engine, runtime: Math.max(0, cpu - main - vad - engine) };
  const runtime = { jit: d.jit ?? 0, gc: d.gc ?? 0, allocator: d.allocator ?? 0, pool: d.pool ?? 0, other: 0 };
  runtime.other = Math.max(0, split.runtime - runtime.jit - runtime.gc - runtime.allocator - runtime.pool);
  return { cpu, split, runtime, busiestShare: cpu > 0 ? busiest / cpu : 0, mainWakeups, value };
}

/** The bare socket's CPU seconds during `fn`, summed over its threads in nanoseconds (it is a few 10-ms ticks). */
async function preciseCpuDuring<T>(pid: number, fn: () => Promise<T>): Promise<{ cpu: number; mainWakeups: number; value: T }> {
  const c0 = liveThreadsCpu(pid);
  const w0 = wakeups(pid);
  const value = await fn();
  return { cpu: liveThreadsCpu(pid) - c0, mainWakeups: wakeups(pid) - w0, value };
}

const perAudio = (split: CpuSplit, audio: number): CpuSplit => ({
  main: round(split.main / audio, 6)!,
  vad: round(split.vad / audio, 6)!,
  engine: round(split.engine / audio, 6)!,
  runtime: round(split.runtime / audio, 6)!,
});

const all = (rs: StreamResult[], k: "finalLatencyS" | "ackBeyondS" | "ackAfterFinalS" | "ackLagS") => rs.flatMap((r) => r[k]);

/** Final and ack latencies of concurrent real-time streams, their finals against those expected, and whether every session ended normally. */
function latencies(rs: StreamResult[], finalsPerStream = segments.length) {
  const finals = all(rs, "finalLatencyS");
  const acks = all(rs, "ackBeyondS");
  const lags = all(rs, "ackLagS");
  return {
    final_p50_ms: round(percentile(finals, 50) * 1000, 0),
    final_p95_ms: round(percentile(finals, 95) * 1000, 0),
    ack_p50_beyond_ms: round(percentile(acks, 50) * 1000, 0),
    ack_p95_beyond_ms: round(percentile(acks, 95) * 1000, 0),
    ack_lag_p50_ms: round(percentile(lags, 50) * 1000, 0),
    ack_lag_p95_ms: round(percentile(lags, 95) * 1000, 0),
    ack_lag_max_ms: round(percentile(lags, 100) * 1000, 0),
    finals: finals.length,
    expected_finals: rs.length * finalsPerStream,
    complete: rs.every((x) => x.closeCode === 1000),
  };
}
const round = (x: number, d = 3) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : null);

const children: Subprocess[] = [];
process.on("exit", () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});
const services: Service[] = [];
process.on("unhandledRejection", async (e) => {
  console.error(e);
  // A request that failed because the service died (e.g. refused connections while it aborts):
  // say so, with its last output, once it has exited.
  await Bun.sleep(3000);
  for (const svc of services) {
    if (svc.proc.exitCode === 0) continue; // stopped by the bench
    try {
      serviceRss(svc);
    } catch (dead) {
      console.error((dead as Error).message);
    }
  }
  process.exit(1);
});

const load0 = loadAverage();
const t0 = performance.now();
say(`audio ${audioS.toFixed(1)} s (${CLIPS.length} clips), models ${MODELS_DIR}, model ${MODEL}, load average ${load0}`);

// ── start-up ────────────────────────────────────────────────────────────────
const svc = await startService();
const echo = await startEcho();
say(`start-up: service ${svc.startupMs.toFixed(0)} ms, bare socket ${echo.startupMs.toFixed(0)} ms`);
/** An account whose plan admits every session the benchmark opens (through the admin API). */
async function benchKey(base: string): Promise<string> {
  const admin = createTRPCClient<AdminRouter>({ links: [httpLink({ url: `${base}/admin/trpc`, headers: { authorization: "Bearer bench-admin" } })] });
  const account = await admin.accountsCreate.mutate({ name: "bench", plan: { maxConcurrentSessions: 10_000 } });
  return (await admin.keysCreate.mutate({ accountId: account.id })).key;
}
/**
 * Every measured session turns the number hold off (`turn_router: true`, its only effect): a final
 * ending inside a spoken number ("Zero.") waits for the next utterance, a delay of a second or two
 * that does not depend on load. It was each stream's slowest final, so the 1-stream final p95 that
 * `streams_sustained` doubles was the hold, not recognition.
 */
const SESSION_INIT = { turn_router: true };
const target: Target = { base: svc.base, key: await benchKey(svc.base), model: MODEL, init: SESSION_INIT };
const pid = svc.proc.pid;
const rssStart = serviceRss(svc);

// ── warm-up (models loaded), then the idle footprint ────────────────────────
// Two sessions sent at once load the models on every engine thread (the idle footprint counts
// them); then one at real time, as the measured steps stream, gives the utterances the bare models
// decode: a session sent at once decodes them with fewer earlier finals in the prompt (they are
// still being recognized), which changes what some decode to (an empty result gives no final).
await runStreams(target, 2, audioFrames, false);
const warm = await runStreams(target, 1, audioFrames, true);
const segments = warm[0]!.finals.map((f) => [f.start, f.end] as [number, number]);
/** Each final's prompt in the service: the text of the finals before it. */
const prompts = warm[0]!.finals.map((_, i) => warm[0]!.finals.slice(0, i).map((f) => f.text).join(" "));
await Bun.sleep(1000);
Bun.gc?.(true);
const rssIdle = serviceRss(svc);
say(`warm-up: ${segments.length} finals; RSS at start ${rssStart.toFixed(0)} MB, idle after warm-up ${rssIdle.toFixed(0)} MB`);

// ── bare models on the same audio (a separate process, nothing else running) ─
interface Bare { vad_cpu_s: number; asr_cpu_s: number; audio_s: number; runs: number; engine: string }
/** The bare models (`bench/bare.ts`, its own process) on `clips`, decoding `segments` prompted with `prompts`. */
async function runBare(clips: string[], segs: [number, number][], texts: string[]): Promise<Bare> {
  const proc = Bun.spawn([process.execPath, path.join(import.meta.dir, "bare.ts"), JSON.stringify({ modelsDir: MODELS_DIR, clips, segments: segs, prompts: texts, passes: quick ? 2 : 5, model: MODEL })], { stdout: "pipe", stderr: "inherit" });
  const out = (await new Response(proc.stdout).text()).trim().split("\n").pop()!;
  await proc.exited;
  return JSON.parse(out) as Bare;
}
/** The bare models' CPU-seconds per audio-second. */
const bareCpuPerAudioS = (b: Bare) => (b.vad_cpu_s + b.asr_cpu_s) / b.audio_s;
const bare = await runBare(CLIPS, segments, prompts);
const barePerAudioS = bareCpuPerAudioS(bare);
say(`bare models: vad ${bare.vad_cpu_s.toFixed(3)} + ${bare.engine} ${bare.asr_cpu_s.toFixed(3)} cpu-s per ${bare.audio_s.toFixed(1)} audio-s`);

// ── max speed ───────────────────────────────────────────────────────────────
const max = await cpuDuring(pid, () => runStreams(target, CPU_STREAMS, audioFrames, false, 0));
const maxPerAudioS = max.cpu / (CPU_STREAMS * audioS);
say(`max speed, ${CPU_STREAMS} streams: ${max.cpu.toFixed(2)} cpu-s (main ${max.split.main.toFixed(2)}, vad ${max.split.vad.toFixed(2)}, engine ${max.split.engine.toFixed(2)}, runtime ${max.split.runtime.toFixed(2)}) (${maxPerAudioS.toFixed(4)}/audio-s), busiest thread ${(max.busiestShare * 100).toFixed(0)} %`);

// ── bare socket, real time ──────────────────────────────────────────────────
const echoRun = await preciseCpuDuring(echo.proc.pid, () => runStreams({ base: null, wsUrl: echo.wsUrl, model: MODEL }, CPU_STREAMS, audioFrames, true));
const echoPerAudioS = echoRun.cpu / (CPU_STREAMS * audioS);
say(`bare socket, ${CPU_STREAMS} real-time streams: ${echoRun.cpu.toFixed(4)} cpu-s (${echoPerAudioS.toFixed(6)}/audio-s)`);
await stopProc(echo.proc);

// ── real-time ramp: latency per stream count; CPU at CPU_STREAMS ────────────
interface Step { streams: number; cpu_per_audio_s: number; cpu_split_per_audio_s: CpuSplit; busiest_thread_share: number; final_p50_ms: number | null; final_p95_ms: number | null; ack_p50_beyond_ms: number | null; ack_p95_beyond_ms: number | null; ack_lag_p50_ms: number | null; ack_lag_p95_ms: number | null; ack_lag_max_ms: number | null; finals: number; expected_finals: number; complete: boolean; words_changed_vs_one_stream: number | null; load: number }

/**
 * Share of the words of one stream's finals (`reference`: a lone real-time stream of the same
 * model) that a step's streams wrote differently (word edits over the reference's words, all
 * streams pooled): what load changed in the transcripts.
 */
const MAX_WORDS_CHANGED = 0.05;
function wordsChanged(reference: StreamResult, rs: StreamResult[]): number | null {
  const ref = fidelityWords(reference.finals.map((f) => f.text).join(" "));
  if (ref.length === 0) return null;
  const edits = rs.reduce((n, r) => n + align(ref, fidelityWords(r.finals.map((f) => f.text).join(" "))).edits, 0);
  return edits / (ref.length * rs.length);
}

/** A step is sustained: its p95 final within 2× the 1-stream step's, every session ended, its transcripts as one stream's (`MAX_WORDS_CHANGED`). */
const sustains = (s: Step, first: Step) =>
  s.final_p95_ms !== null && s.complete && s.final_p95_ms <= 2 * (first.final_p95_ms ?? NaN) && (s.words_changed_vs_one_stream ?? 0) <= MAX_WORDS_CHANGED;

/**
 * The ramp of real-time streams for `t`: steps of RAMP until one is not sustained (later ones only
 * take longer), except that steps up to `runUpTo` always run. `onStep` sees each step's raw CPU
 * reading and results.
 */
async function ramp(t: Target, reference: StreamResult, runUpTo: number, onStep?: (n: number, r: Awaited<ReturnType<typeof cpuDuring<StreamResult[]>>>, step: Step) => void): Promise<Step[]> {
  const out: Step[] = [];
  for (const n of RAMP) {
    const last = out.at(-1);
    if (last && !sustains(last, out[0]!) && n > runUpTo) break;
    const r = await cpuDuring(pid, () => runStreams(t, n, audioFrames, true, 37, DRAIN_MS));
    const step: Step = {
      streams: n,
      cpu_per_audio_s: r.cpu / (n * audioS),
      cpu_split_per_audio_s: perAudio(r.split, n * audioS),
      busiest_thread_share: r.busiestShare,
      ...latencies(r.value, reference.finals.length),
      words_changed_vs_one_stream: round(wordsChanged(reference, r.value) ?? NaN, 4),
      load: loadAverage(),
    };
    out.push(step);
    onStep?.(n, r, step);
    say(`${t.model}, real time, ${n} streams: final p50 ${step.final_p50_ms} ms p95 ${step.final_p95_ms} ms, ack p50 / p95 beyond ${step.ack_p50_beyond_ms} / ${step.ack_p95_beyond_ms} ms, ${step.finals}/${step.expected_finals} finals, words changed ${step.words_changed_vs_one_stream}, ${(step.cpu_per_audio_s).toFixed(4)} cpu-s/audio-s (main ${step.cpu_split_per_audio_s.main}, vad ${step.cpu_split_per_audio_s.vad}, engine ${step.cpu_split_per_audio_s.engine}, runtime ${step.cpu_split_per_audio_s.runtime}), busiest thread ${(step.busiest_thread_share * 100).toFixed(0)} %, load ${step.load}`);
  }
  return out;
}

/** Most streams of a ramp that are sustained, in a row from one. */
function sustainedOf(steps: Step[]): number {
  let n = 0;
  for (const s of steps) {
    if (!sustains(s, steps[0]!)) break;
    n = s.streams;
  }
  return n;
}

let rtPerAudioS = NaN;
let rtSplit: CpuSplit = { main: NaN, vad: NaN, engine: NaN, runtime: NaN };
let rtRuntime: RuntimeSplit = { jit: NaN, gc: NaN, allocator: NaN, pool: NaN, other: NaN };
let rtMainWakeups = NaN;
let rtAck: number[] = [];
let rtAckAfterFinal: number[] = [];
// The step of CPU_STREAMS always runs, for the CPU ratio.
const steps = await ramp(target, warm[0]!, CPU_STREAMS, (n, r, step) => {
  if (n !== CPU_STREAMS) return;
  rtPerAudioS = step.cpu_per_audio_s;
  rtSplit = step.cpu_split_per_audio_s;
  rtRuntime = Object.fromEntries(Object.entries(r.runtime).map(([k, v]) => [k, round(v / (n * audioS), 6)])) as RuntimeSplit;
  rtMainWakeups = r.mainWakeups / (n * audioS);
  rtAck = all(r.value, "ackBeyondS");
  rtAckAfterFinal = all(r.value, "ackAfterFinalS");
});

// ── the low_latency profile: the real-time step of CPU_STREAMS streams again ──
/**
 * Its decodes ask for latency before accuracy (greedy finals; Whisper's shorter encoder windows for
 * short utterances). `same_text_as_default` counts its finals whose text is the warm-up's (default
 * profile) final of the same utterance.
 */
const low = await cpuDuring(pid, () => runStreams({ ...target, init: { ...SESSION_INIT, profile: "low_latency" } }, CPU_STREAMS, audioFrames, true, 37, DRAIN_MS));
const lowLatency = {
  streams: CPU_STREAMS,
  cpu_per_audio_s: round(low.cpu / (CPU_STREAMS * audioS), 5),
  ...latencies(low.value),
  same_text_as_default: low.value.reduce((n, r) => n + r.finals.filter((f, i) => f.text === warm[0]!.finals[i]?.text).length, 0),
};
say(`low_latency profile, ${CPU_STREAMS} real-time streams: ack p50 / p95 beyond ${lowLatency.ack_p50_beyond_ms} / ${lowLatency.ack_p95_beyond_ms} ms, final p95 ${lowLatency.final_p95_ms} ms, ${lowLatency.finals}/${lowLatency.expected_finals} finals (${lowLatency.same_text_as_default} with the default profile's text), ${lowLatency.cpu_per_audio_s} cpu-s/audio-s`);

// ── continuous speech: long utterances, decoded as partials while they grow ──
/**
 * The spelling clips are too short for a partial; these are utterances of several seconds, so the
 * real-time step's decodes are mostly partials (the streaming policy). The bare models decode the
 * finals of its first stream once each (what a recognizer without partials would do), so
 * `cpu_ratio_vs_bare` is the price of live partials on top of the service's own.
 */
const SPEECH_CLIPS = quick ? ["jfk"] : ["jfk", "leopard_test", "leopard_diarization_test"];
const speechPcm = toPcm16(benchSamples(SPEECH_CLIPS));
const speechS = speechPcm.length / 2 / RATE;
const cont = await cpuDuring(pid, () => runStreams(target, CPU_STREAMS, frames(speechPcm), true, 37, DRAIN_MS));
const contFinals = cont.value[0]!.finals;
const contBare = await runBare(SPEECH_CLIPS, contFinals.map((f) => [f.start, f.end]), contFinals.map((_, i) => contFinals.slice(0, i).map((f) => f.text).join(" ")));
const contPerAudioS = cont.cpu / (CPU_STREAMS * speechS);
const continuous = {
  streams: CPU_STREAMS,
  audio_s: round(speechS, 2),
  cpu_per_audio_s: round(contPerAudioS, 5),
  cpu_split_per_audio_s: perAudio(cont.split, CPU_STREAMS * speechS),
  bare_cpu_per_audio_s: round(bareCpuPerAudioS(contBare), 5),
  cpu_ratio_vs_bare: round(contPerAudioS / bareCpuPerAudioS(contBare)),
  ...latencies(cont.value),
  expected_finals: CPU_STREAMS * contFinals.length,
};
say(`continuous speech (${SPEECH_CLIPS.join(", ")}), ${CPU_STREAMS} real-time streams: ${continuous.cpu_per_audio_s} cpu-s/audio-s (${continuous.cpu_ratio_vs_bare}× the bare models' ${continuous.bare_cpu_per_audio_s}), ack p50 / p95 beyond ${continuous.ack_p50_beyond_ms} / ${continuous.ack_p95_beyond_ms} ms, a frame acknowledged after p50 / p95 / max ${continuous.ack_lag_p50_ms} / ${continuous.ack_lag_p95_ms} / ${continuous.ack_lag_max_ms} ms, final p50 / p95 ${continuous.final_p50_ms} / ${continuous.final_p95_ms} ms, ${continuous.finals} finals`);

const sustained = sustainedOf(steps);

// ── idle sessions ───────────────────────────────────────────────────────────
const before = serviceRss(svc);
const stopIdle = await openIdle(target, IDLE_SESSIONS);
await Bun.sleep(500);
const rssPerSession = (serviceRss(svc) - before) / IDLE_SESSIONS;
await stopIdle();
say(`${IDLE_SESSIONS} idle sessions: ${rssPerSession.toFixed(3)} MB each`);

// ── memory after the load ───────────────────────────────────────────────────
await Bun.sleep(3000);
const rssAfter = serviceRss(svc);

// ── the other models: their ramps, and every model's finals at `endpointing: 0.1` ──
// (after the memory readings: the other models load more weights)
/**
 * Each model of `OTHER_MODELS` (the catalogue's other English recognizer by default; `BENCH_MODELS`,
 * comma-separated, to change) gets its own warm-up (its reference stream) and ramp, as MODEL did.
 */
const OTHER_MODELS = (process.env.BENCH_MODELS ?? (MODEL === "trantoria-1" ? "solaria-1" : "trantoria-1"))
  .split(",")
  .map((m) => m.trim())
  .filter((m) => m !== "" && m !== MODEL);
const rampByModel: Record<string, Step[]> = { [MODEL]: steps };
for (const model of OTHER_MODELS) {
  const t: Target = { ...target, model };
  await runStreams(t, 2, audioFrames, false);
  const reference = (await runStreams(t, 1, audioFrames, true))[0]!;
  rampByModel[model] = await ramp(t, reference, 0);
}
const sustainedByModel = Object.fromEntries(Object.entries(rampByModel).map(([m, s]) => [m, sustainedOf(s)]));

/**
 * One real-time stream per model and profile at `endpointing: 0.1`, the setting of the public
 * Pipecat STT benchmark: each final's arrival beyond its utterance's end (endpointing included).
 */
const ENDPOINTING_PROFILES = ["low_latency", "balanced"] as const;
const endpointingShort: { model: string; profile: string; final_p50_ms: number | null; final_p95_ms: number | null; finals: number; complete: boolean }[] = [];
for (const model of [MODEL, ...OTHER_MODELS]) {
  for (const profile of ENDPOINTING_PROFILES) {
    const [r] = await runStreams({ ...target, model, init: { ...SESSION_INIT, endpointing: 0.1, profile } }, 1, audioFrames, true, 37, DRAIN_MS);
    const row = { model, profile, final_p50_ms: round(percentile(r!.finalLatencyS, 50) * 1000, 0), final_p95_ms: round(percentile(r!.finalLatencyS, 95) * 1000, 0), finals: r!.finals.length, complete: r!.closeCode === 1000 };
    endpointingShort.push(row);
    say(`endpointing 0.1, ${model}, ${profile}: final p50 / p95 ${row.final_p50_ms} / ${row.final_p95_ms} ms beyond the utterance, ${row.finals} finals`);
  }
}

await stopProc(svc.proc);
for (const f of [svc.dataDir, ...svc.output]) rmSync(f, { recursive: true, force: true });

// ── distributed: the real-time CPU step through Redis and a worker process ─
/**
 * The same `CPU_STREAMS` real-time streams on a gateway in distributed mode (REDIS_URL) and one
 * worker process (`workers/main.ts`), both fresh, against the real Redis at BENCH_REDIS_URL under a
 * key prefix of their own (removed afterwards). CPU is the gateway's plus the worker's (Redis's
 * own is not counted); ratios are against the embedded step of this run.
 */
async function distributedStep(embedded: Step | undefined) {
  const unavailable = await redisUnavailable();
  if (unavailable) {
    say(`distributed: skipped (${unavailable})`);
    return { skipped: unavailable };
  }
  const prefix = `bench-${process.pid}-${Date.now().toString(36)}`;
  const env = { REDIS_URL: BENCH_REDIS_URL, REDIS_PREFIX: prefix, MODELS_DIR };
  const worker = await startWorker(ROOT, env);
  children.push(worker);
  try {
    const gw = await startService(env);
    const t: Target = { base: gw.base, key: await benchKey(gw.base), model: MODEL, init: SESSION_INIT };
    await runStreams(t, 1, audioFrames, false); // warm-up: the worker loads the recognizer
    const pids = [gw.proc.pid, worker.pid];
    const c0 = pids.map(cpuSeconds);
    const r = await runStreams(t, CPU_STREAMS, audioFrames, true, 37, DRAIN_MS);
    const [gatewayCpu, workerCpu] = pids.map((p, i) => cpuSeconds(p) - c0[i]!) as [number, number];
    await stopProc(gw.proc);
    for (const f of [gw.dataDir, ...gw.output]) rmSync(f, { recursive: true, force: true });
    const perAudioS = (gatewayCpu + workerCpu) / (CPU_STREAMS * audioS);
    const finals = all(r, "finalLatencyS");
    const p95 = round(percentile(finals, 95) * 1000, 0);
    const out = {
      streams: CPU_STREAMS,
      startup_ms: round(gw.startupMs, 0),
      cpu_per_audio_s: round(perAudioS, 5),
      gateway_cpu_per_audio_s: round(gatewayCpu / (CPU_STREAMS * audioS), 5),
      worker_cpu_per_audio_s: round(workerCpu / (CPU_STREAMS * audioS), 5),
      cpu_ratio_vs_embedded: embedded ? round(perAudioS / embedded.cpu_per_audio_s) : null,
      cpu_ratio_vs_bare: round(perAudioS / barePerAudioS),
      final_p50_ms: round(percentile(finals, 50) * 1000, 0),
      final_p95_ms: p95,
      final_p95_ratio_vs_embedded: embedded?.final_p95_ms && p95 !== null ? round(p95 / embedded.final_p95_ms) : null,
      ack_p95_beyond_ms: round(percentile(all(r, "ackBeyondS"), 95) * 1000, 0),
      ack_lag_p95_ms: round(percentile(all(r, "ackLagS"), 95) * 1000, 0),
      finals: finals.length,
      expected_finals: CPU_STREAMS * segments.length,
      complete: r.every((x) => x.closeCode === 1000),
      load: loadAverage(),
    };
    say(`distributed, ${CPU_STREAMS} streams: ${perAudioS.toFixed(4)} cpu-s/audio-s (gateway ${out.gateway_cpu_per_audio_s}, worker ${out.worker_cpu_per_audio_s}; ${out.cpu_ratio_vs_embedded}× embedded), final p95 ${p95} ms, ${out.finals}/${out.expected_finals} finals, load ${out.load}`);
    return out;
  } finally {
    await stopProc(worker);
    await dropPrefix(prefix).catch((e: unknown) => say(`could not remove the Redis keys under ${prefix}: ${(e as Error).message}`));
  }
}
const distributed = await distributedStep(steps.find((s) => s.streams === CPU_STREAMS));

// ── WhisperLive, the live peer, beside the service at 4 and 8 streams ───────
/**
 * `bench/latency/run.ts --streams 4,8 --profile balanced` (its own processes, after the service
 * stopped): the service in process and WhisperLive on the same tiny.en weights, the same clips with
 * references (jfk, leopard_test) at 1× real time; its rows (final p50 / p95 ms beyond the speech,
 * WER, finals missing) as it writes them to bench/results/latency.json. In the full run, or
 * `--quick --whisperlive`; skipped without WhisperLive's Python (bench/latency/README.md).
 */
async function whisperLiveStep() {
  if (quick && !process.argv.includes("--whisperlive")) return { skipped: "--quick (add --whisperlive)" };
  if (!existsSync(whisperLivePython())) return { skipped: `no WhisperLive Python at ${whisperLivePython()} (bench/latency/README.md)` };
  const proc = Bun.spawn([process.execPath, path.join(import.meta.dir, "latency", "run.ts"), "--streams", "4,8", "--profile", "balanced"], { cwd: ROOT, stdout: "ignore", stderr: "ignore" });
  if ((await proc.exited) !== 0) return { skipped: `bench/latency/run.ts exited with ${proc.exitCode}` };
  const r = JSON.parse(readFileSync(path.join(import.meta.dir, "results", "latency.json"), "utf8")) as { profile: string; rows: { system: string; streams: number; finalP50: number; finalP95: number; wer: number; missingFinals: number; cpuPerAudioS: number }[] };
  const rows = r.rows.map((x) => ({ system: x.system, streams: x.streams, final_p50_ms: round(x.finalP50, 0), final_p95_ms: round(x.finalP95, 0), wer: round(x.wer, 4), finals_missing: x.missingFinals, cpu_per_audio_s: round(x.cpuPerAudioS, 4) }));
  for (const x of rows) say(`${x.system}, ${x.streams} streams: final p50 / p95 ${x.final_p50_ms} / ${x.final_p95_ms} ms, WER ${x.wer}, ${x.finals_missing} finals missing`);
  return { profile: r.profile, rows };
}
const whisperLive = await whisperLiveStep();

const bareVadPerAudioS = bare.vad_cpu_s / bare.audio_s;
const bareAsrPerAudioS = bare.asr_cpu_s / bare.audio_s;
/**
 * The gateway's own CPU per audio-second at real time: everything but the recognizer's threads and
 * the bare Silero runs of the same audio (main thread, runtime threads, and the VAD thread's CPU
 * beyond what Silero costs alone).
 */
const gatewayPerAudioS = rtPerAudioS - rtSplit.engine - bareVadPerAudioS;
const summary = {
  cpu_ratio_realtime: round(rtPerAudioS / barePerAudioS),
  cpu_ratio_max: round(maxPerAudioS / barePerAudioS),
  overhead_vs_echo: round(gatewayPerAudioS / echoPerAudioS),
  service_minus_bare_vs_echo: round((rtPerAudioS - barePerAudioS) / echoPerAudioS),
  gateway_cpu_per_audio_s: round(gatewayPerAudioS, 6),
  cpu_split_per_audio_s_realtime: rtSplit,
  runtime_split_per_audio_s_realtime: rtRuntime,
  main_wakeups_per_audio_s_realtime: round(rtMainWakeups, 1),
  echo_wakeups_per_audio_s: round(echoRun.mainWakeups / (CPU_STREAMS * audioS), 1),
  vad_ratio_vs_bare: round(rtSplit.vad / bareVadPerAudioS),
  engine_ratio_vs_bare: round(rtSplit.engine / bareAsrPerAudioS),
  streams_sustained: sustained,
  streams_sustained_by_model: sustainedByModel,
  max_words_changed_vs_one_stream: MAX_WORDS_CHANGED,
  endpointing_0_1: endpointingShort,
  ack_p95_beyond_utterance_ms: round(percentile(rtAck, 95) * 1000, 0),
  ack_p95_beyond_utterance_ms_low_latency: lowLatency.ack_p95_beyond_ms,
  low_latency: lowLatency,
  continuous,
  ack_lag_p95_ms: steps.find((s) => s.streams === CPU_STREAMS)?.ack_lag_p95_ms ?? null,
  ack_lag_p95_ms_continuous: continuous.ack_lag_p95_ms,
  ack_p95_after_final_ms: round(percentile(rtAckAfterFinal, 95) * 1000, 0),
  ack_p50_after_final_ms: round(percentile(rtAckAfterFinal, 50) * 1000, 0),
  final_p95_beyond_utterance_ms: steps.find((s) => s.streams === CPU_STREAMS)?.final_p95_ms ?? null,
  endpointing_s: 0.64,
  rss_after_load_ratio: round(rssAfter / rssIdle),
  startup_ms: round(svc.startupMs, 0),
  echo_startup_ms: round(echo.startupMs, 0),
  service_cpu_per_audio_s_realtime: round(rtPerAudioS, 5),
  service_cpu_per_audio_s_max: round(maxPerAudioS, 5),
  bare_cpu_per_audio_s: round(barePerAudioS, 5),
  bare_vad_cpu_per_audio_s: round(bareVadPerAudioS, 6),
  bare_asr_cpu_per_audio_s: round(bareAsrPerAudioS, 5),
  echo_cpu_per_audio_s: round(echoPerAudioS, 6),
  busiest_thread_share_max: round(max.busiestShare),
  rss_start_mb: round(rssStart, 1),
  rss_idle_mb: round(rssIdle, 1),
  rss_after_load_mb: round(rssAfter, 1),
  rss_per_idle_session_mb: round(rssPerSession),
  idle_sessions: IDLE_SESSIONS,
  ramp: steps,
  ramp_by_model: Object.fromEntries(OTHER_MODELS.map((m) => [m, rampByModel[m]])),
  distributed,
  whisperlive: whisperLive,
  engine: bare.engine,
  audio_s: round(audioS, 2),
  cpu_streams: CPU_STREAMS,
  quick,
  load_average: [load0, loadAverage()],
  cores: navigator.hardwareConcurrency,
  seconds: round((performance.now() - t0) / 1000, 1),
  at: new Date().toISOString(),
};

const dir = path.join(import.meta.dir, "results");
mkdirSync(dir, { recursive: true });
const json = JSON.stringify(summary);
writeFileSync(path.join(dir, `${summary.at.replace(/[:.]/g, "-")}.json`), JSON.stringify(summary, null, 2) + "\n");
writeFileSync(path.join(dir, "latest.json"), JSON.stringify(summary, null, 2) + "\n");
writeFileSync(
  path.join(dir, "latest.svg"),
  chart(`live-stt bench ${summary.at.slice(0, 16)} (${quick ? "quick" : "full"}, load ${load0})`, [
    { label: "CPU ÷ bare models, real time", value: summary.cpu_ratio_realtime ?? NaN, target: 1.3 },
    { label: "CPU ÷ bare models, max speed", value: summary.cpu_ratio_max ?? NaN, target: 1.3 },
    { label: "gateway overhead ÷ bare socket", value: summary.overhead_vs_echo ?? NaN, target: 5 },
    { label: "RSS after load ÷ idle", value: summary.rss_after_load_ratio ?? NaN, target: 1.2 },
    { label: "start-up (×100 ms)", value: (summary.startup_ms ?? NaN) / 100, target: 3 },
    { label: "ack p95 beyond utterance (×100 ms)", value: (summary.ack_p95_beyond_utterance_ms ?? NaN) / 100, target: 3 },
    { label: "ack p95 beyond utterance, low_latency (×100 ms)", value: (summary.ack_p95_beyond_utterance_ms_low_latency ?? NaN) / 100, target: 3 },
    { label: "real-time streams sustained", value: summary.streams_sustained },
  ]),
);
console.log(json);
process.exit(0);
