/**
 * Live latency benchmark: the service (Whisper tiny.en serving trantoria-1, streaming policy) and
 * WhisperLive (faster-whisper backend on the same weights: the original CTranslate2 files) serve the
 * same audio on the same machine in one run. Each stream plays the clips at 1× real time in 100-ms
 * chunks, separated by silence; 1, 4 and 8 concurrent streams.
 *
 * Per system and concurrency: end of speech → final minus the endpointing window (p50, p95),
 * speech start → first transcript (p50), partial cadence (median interval between transcripts of
 * one utterance), CPU-seconds per audio-second (whole server process), and the WER of the finals
 * beside the offline decode of the same clips (the service's engine, whole clip, its own settings).
 * Speech start/end of a clip come from its energy (first/last 10-ms frame above −40 dBFS).
 *
 *   bun bench/latency/run.ts [--streams 1,4,8] [--profile low_latency] [--clips jfk.wav,leopard_test.wav]
 *                            [--systems service,whisperlive] [--threads 1]
 *
 * `--threads`: inference threads of each system (the service's onnxruntime intra-op threads,
 * WhisperLive's OMP_NUM_THREADS, which caps CTranslate2's); equal for a fair comparison.
 *
 * WhisperLive: `${LIVE_STT_CACHE:-~/.cache/live-stt}/venv-whisperlive` (python with whisper-live
 * 0.10.0, see bench/latency/README.md; override WHISPERLIVE_PYTHON), CTranslate2 tiny.en from
 * `${LIVE_STT_CACHE}/ct2/whisper-tiny.en*` (override CT2_WHISPER_TINY_EN). Results are printed
 * and written to bench/results/latency.json.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir, loadavg } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { lentCoordinator, sharedAudio, startTestService } from "../../test/helpers/server.ts";
import { modelsDir, vadModelsDir } from "../../test/asr/models.ts";
import { referenceTexts } from "../../test/asr/stream.ts";
import { normalizeWords, wordEdits } from "../../test/asr/wer.ts";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { InProcessCoordinator } from "../../workers/coordinator/in-process.ts";
import { type Seen, startWhisperLive, whisperLiveStream } from "../lib/whisperlive.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const CACHE = process.env.LIVE_STT_CACHE ?? path.join(homedir(), ".cache", "live-stt");
const RATE = 16000;
const LEAD_S = 0.5;
const GAP_S = 2.5;
const { values: args } = parseArgs({
  options: {
    streams: { type: "string", default: "1,4,8" },
    profile: { type: "string", default: "low_latency" },
    clips: { type: "string", default: "jfk.wav,leopard_test.wav" },
    systems: { type: "string", default: "service,whisperlive" },
    endpointing: { type: "string", default: "0.64" },
    threads: { type: "string", default: "1" },
  },
});
const STREAMS = args.streams!.split(",").map(Number);
const CLIPS = args.clips!.split(",");
const ENDPOINTING = Number(args.endpointing);
const SYSTEMS = args.systems!.split(",");
/** Inference threads of each system: onnxruntime intra-op threads / CTranslate2's OMP_NUM_THREADS. */
const THREADS = Number(args.threads);

// ── audio ───────────────────────────────────────────────────────────────────

interface Clip {
  name: string;
  /** Seconds of the clip's first sample in the stream. */
  offset: number;
  duration: number;
  speechStart: number;
  speechEnd: number;
  reference: string;
}

/** First and last 10-ms frame above −40 dBFS (RMS), seconds. */
function speechBounds(x: Float32Array): [number, number] {
  const frame = RATE / 100;
  let first = -1;
  let last = -1;
  for (let i = 0; i + frame <= x.length; i += frame) {
    let e = 0;
    for (let j = i; j < i + frame; j++) e += x[j]! * x[j]!;
    if (Math.sqrt(e / frame) > 0.01) {
      if (first < 0) first = i;
      last = i + frame;
    }
  }
  return [first / RATE, last / RATE];
}

const references = await referenceTexts(sharedAudio);
const clips: Clip[] = [];
const parts: Float32Array[] = [new Float32Array(LEAD_S * RATE)];
let cursor = LEAD_S;
for (const name of CLIPS) {
  const wav = readWavFile(path.join(sharedAudio, name));
  if (wav.sampleRate !== RATE || wav.channels !== 1) throw new Error(`${name}: 16 kHz mono clips only`);
  const [s, e] = speechBounds(wav.samples);
  clips.push({ name, offset: cursor, duration: wav.samples.length / RATE, speechStart: cursor + s, speechEnd: cursor + e, reference: (references.get(name) ?? "").replace(/\[spk\d+\]/g, " ") });
  parts.push(wav.samples, new Float32Array(GAP_S * RATE));
  cursor += wav.samples.length / RATE + GAP_S;
}
const audio = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
parts.reduce((o, p) => (audio.set(p, o), o + p.length), 0);
const AUDIO_S = audio.length / RATE;
const FRAME = RATE / 10;

function pcm16(x: Float32Array): Uint8Array {
  const out = new Int16Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(x[i]! * 32768)));
  return new Uint8Array(out.buffer);
}

/** Calls `send(i)` for each 100-ms frame at 1× real time from `t0`. */
async function playRealTime(t0: number, send: (from: number, to: number) => void): Promise<void> {
  for (let i = 0, f = 0; f < audio.length; i++, f += FRAME) {
    const due = t0 + i * 100 - performance.now();
    if (due > 0) await Bun.sleep(due);
    send(f, Math.min(audio.length, f + FRAME));
  }
}

// ── what a stream observed ──────────────────────────────────────────────────

interface ClipResult {
  clip: string;
  firstMs: number | null;
  finalMs: number | null;
  text: string;
  cadenceMs: number[];
}

/** Splits a stream's events by clip and derives the latencies. */
function analyse(t0: number, seen: Seen[]): ClipResult[] {
  return clips.map((c, k) => {
    const next = clips[k + 1]?.offset ?? Infinity;
    const mine = seen.filter((s) => s.start >= c.offset - LEAD_S - 0.3 && s.start < Math.min(next - 0.3, c.offset + c.duration));
    const startWall = t0 + c.speechStart * 1000;
    const endWall = t0 + c.speechEnd * 1000;
    const first = mine.find((s) => s.at >= startWall);
    const finals = mine.filter((s) => s.final);
    const lastFinal = finals.length > 0 ? Math.max(...finals.map((f) => f.at)) : null;
    const byKey = new Map<string, number[]>();
    for (const s of mine) byKey.set(s.key, [...(byKey.get(s.key) ?? []), s.at]);
    const cadence = [...byKey.values()].flatMap((ts) => ts.slice(1).map((t, i) => t - ts[i]!));
    const text = finals.map((f) => f.text.trim()).join(" ");
    return {
      clip: c.name,
      firstMs: first ? first.at - startWall : null,
      finalMs: lastFinal !== null ? lastFinal - endWall - ENDPOINTING * 1000 : null,
      text,
      cadenceMs: cadence,
    };
  });
}

// ── the service ─────────────────────────────────────────────────────────────

async function serviceStream(url: string, key: string, t0: number): Promise<Seen[]> {
  const res = await fetch(`${url}/v2/live`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-key": key },
    body: JSON.stringify({ model: "trantoria-1", profile: args.profile, endpointing: ENDPOINTING, language_config: { languages: ["en"] } }),
  });
  if (res.status !== 201) throw new Error(`POST /v2/live: ${res.status} ${await res.text()}`);
  const { url: wsUrl } = (await res.json()) as { url: string };
  const ws = new WebSocket(wsUrl);
  ws.binaryType = "arraybuffer";
  const seen: Seen[] = [];
  const closed = new Promise<void>((r) => ws.addEventListener("close", () => r()));
  ws.addEventListener("message", (e) => {
    const m = JSON.parse(String(e.data));
    if (m.type !== "transcript") return;
    const u = m.data.utterance;
    seen.push({ at: performance.now(), start: u.start, end: u.end, text: u.text, final: m.data.is_final, key: m.data.id });
  });
  await new Promise<void>((r) => ws.addEventListener("open", () => r(), { once: true }));
  const bytes = pcm16(audio);
  await playRealTime(t0, (from, to) => ws.send(bytes.subarray(from * 2, to * 2)));
  ws.send(JSON.stringify({ type: "stop_recording" }));
  await Promise.race([closed, Bun.sleep(180_000)]);
  return seen;
}

// ── WhisperLive ─────────────────────────────────────────────────────────────

function ct2TinyEn(): string {
  const env = process.env.CT2_WHISPER_TINY_EN;
  if (env) return env;
  const dir = path.join(CACHE, "ct2");
  const hit = existsSync(dir) ? readdirSync(dir).filter((d) => d.startsWith("whisper-tiny.en")).sort() : [];
  if (hit.length === 0) throw new Error(`no CTranslate2 whisper-tiny.en under ${dir} (run \`bun run models -- pull whisper-tiny.en\`)`);
  return path.join(dir, hit[hit.length - 1]!);
}

/** utime + stime of a process and its threads, seconds. */
function procCpu(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
}

// ── the run ─────────────────────────────────────────────────────────────────

const q = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
};

interface Row {
  system: string;
  streams: number;
  finalP50: number;
  finalP95: number;
  firstP50: number;
  cadenceP50: number;
  cpuPerAudioS: number;
  wer: number;
  missingFinals: number;
  load: number;
}

function summarise(system: string, streams: number, results: ClipResult[][], cpu: number, load: number): Row {
  const all = results.flat();
  const finals = all.map((r) => r.finalMs).filter((x): x is number => x !== null);
  const firsts = all.map((r) => r.firstMs).filter((x): x is number => x !== null);
  let edits = 0;
  let words = 0;
  for (const r of all) {
    const ref = normalizeWords(clips.find((c) => c.name === r.clip)!.reference);
    edits += wordEdits(ref, normalizeWords(r.text));
    words += ref.length;
  }
  return {
    system,
    streams,
    finalP50: q(finals, 0.5),
    finalP95: q(finals, 0.95),
    firstP50: q(firsts, 0.5),
    cadenceP50: q(all.flatMap((r) => r.cadenceMs), 0.5),
    cpuPerAudioS: cpu / (AUDIO_S * streams),
    wer: edits / Math.max(1, words),
    missingFinals: all.length - finals.length,
    load,
  };
}

const rows: Row[] = [];
const texts: Record<string, string[]> = {};
/** Per system and concurrency: each clip's final and first-transcript latency (ms), for pooling runs. */
const latencies: Record<string, { clip: string; finalMs: number | null; firstMs: number | null }[]> = {};
const started = new Date().toISOString();

// Offline baseline and the service.
const coordinator = await InProcessCoordinator.create({ modelsDir, threads: 1, queueLimit: 500, sessionThreads: THREADS });
let offlineWer = NaN;
{
  let edits = 0;
  let words = 0;
  for (const c of clips) {
    const wav = readWavFile(path.join(sharedAudio, c.name));
    const r = await coordinator.transcribe({ sessionId: "offline", utteranceId: c.name, seq: 1, model: "trantoria-1", request: { audio: wav.samples, partial: false, languages: ["en"] } });
    const ref = normalizeWords(c.reference);
    edits += wordEdits(ref, normalizeWords(r.text));
    words += ref.length;
    texts[`offline ${c.name}`] = [r.text];
  }
  offlineWer = edits / words;
}
if (SYSTEMS.includes("service")) {
  const svc = await startTestService({ modelsDir: vadModelsDir, coordinator: lentCoordinator(coordinator) });
  for (const n of STREAMS) {
    const load = loadavg()[0]!;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now() + 1500;
    const seen = await Promise.all(Array.from({ length: n }, () => serviceStream(svc.running.url, svc.key, t0)));
    const d = process.cpuUsage(cpu0);
    const results = seen.map((s) => analyse(t0, s));
    texts[`service x${n}`] = results.flat().map((r) => `${r.clip}: ${r.text}`);
    latencies[`service x${n}`] = results.flat().map(({ clip, finalMs, firstMs }) => ({ clip, finalMs, firstMs }));
    rows.push(summarise(`service (${args.profile})`, n, results, (d.user + d.system) / 1e6, load));
    console.log(JSON.stringify(rows[rows.length - 1]));
  }
  await svc.stop();
}

if (SYSTEMS.includes("whisperlive")) {
  const ct2 = ct2TinyEn();
  const server = await startWhisperLive({ ct2, threads: THREADS, vadModelsDir });
  const port = server.port;
  try {
    for (const n of STREAMS) {
      const load = loadavg()[0]!;
      const cpu0 = procCpu(server.pid);
      const t0 = performance.now() + 3000;
      const seen = await Promise.all(Array.from({ length: n }, (_, i) => whisperLiveStream({ port, ct2, samples: audio, t0, uid: `bench-${n}-${i}` })));
      const cpu = procCpu(server.pid) - cpu0;
      const results = seen.map((s) => analyse(t0, s));
      texts[`whisperlive x${n}`] = results.flat().map((r) => `${r.clip}: ${r.text}`);
      latencies[`whisperlive x${n}`] = results.flat().map(({ clip, finalMs, firstMs }) => ({ clip, finalMs, firstMs }));
      rows.push(summarise("WhisperLive 0.10.0 (faster-whisper, int8)", n, results, cpu, load));
      console.log(JSON.stringify(rows[rows.length - 1]));
    }
  } finally {
    server.stop();
  }
}

const ms = (x: number) => (Number.isFinite(x) ? `${Math.round(x)}` : "-");
console.log(`\nLive latency, ${CLIPS.join(" + ")} per stream (${AUDIO_S.toFixed(1)} s), 1× real time, 100-ms chunks; endpointing ${ENDPOINTING} s; ${THREADS} inference thread(s) each; offline WER ${(offlineWer * 100).toFixed(1)} %\n`);
console.log("| system | streams | final p50 ms | final p95 ms | first transcript p50 ms | cadence p50 ms | CPU-s/audio-s | WER | finals missing | load avg |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(`| ${r.system} | ${r.streams} | ${ms(r.finalP50)} | ${ms(r.finalP95)} | ${ms(r.firstP50)} | ${ms(r.cadenceP50)} | ${r.cpuPerAudioS.toFixed(3)} | ${(r.wer * 100).toFixed(1)} % | ${r.missingFinals} | ${r.load.toFixed(1)} |`);
}
console.log("\n(final = end of speech → final transcript, minus the endpointing window, for both systems)");
const out = path.join(ROOT, "bench", "results");
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, "latency.json"), JSON.stringify({ started, clips, endpointing: ENDPOINTING, profile: args.profile, threads: THREADS, offlineWer, rows, texts, latencies }, null, 2));
process.exit(0);
