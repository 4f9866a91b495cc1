/**
 * bench/words: word boundaries of the service, streamed at 1x with partials on, against
 * faster-whisper's `word_timestamps=True` on the same CTranslate2 weights (offline), and the CPU the
 * alignment costs per audio-second (engine-level, the same clips, alignment on vs off).
 *
 *   bun bench/words/run.ts [whisper-tiny.en whisper-base]
 *
 * Clips: jfk.wav, leopard_test.wav, the first 12 s of the 8-kHz OSR clip (shared audio), and two
 * espeak-ng clips (clean; 8 kHz with white noise at about 10 dB SNR). Words are paired by a WER
 * alignment of their normalized texts; only words both sides recognized count.
 *
 * Turn edges: on the fidelity bench's voice-agent clips (`bench/fidelity/clips.ts`, synthesized, so
 * each turn's start and end of sound are known), the first word's start and the last word's end of
 * each turn against those, for the service and for faster-whisper alike: which of the two places
 * a word where its sound is.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sharedAudio, startTestService } from "../../test/helpers/server.ts";
import { chunks, createSession, RATE, RawClient, toPcm16, type Msg } from "../../test/pipeline/helpers.ts";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { WhisperEngine } from "../../workers/engines/whisper/engine.ts";
import { normalizeWord } from "../../server/session/overlap.ts";
import { align, quantile } from "../fidelity/metrics.ts";
import { clipSet } from "../fidelity/clips.ts";
import { ct2Dir } from "../wer/ct2.ts";
import { cacheDir } from "../../workers/models/python.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const MODELS = path.resolve(process.env.MODELS_DIR ?? path.join(ROOT, "models"));
const PUBLIC: Record<string, string> = { "whisper-tiny.en": "trantoria-1", "whisper-base": "solaria-1" };
type W = { word: string; start: number; end: number; confidence: number };

function clips(tmp: string): { name: string; file: string }[] {
  const out = [
    { name: "jfk", file: path.join(sharedAudio, "jfk.wav") },
    { name: "leopard", file: path.join(sharedAudio, "leopard_test.wav") },
  ];
  const sh = (cmd: string[]) => { const r = Bun.spawnSync(cmd); if (r.exitCode !== 0) throw new Error(`${cmd[0]}: ${r.stderr}`); };
  const osr = path.join(tmp, "osr8k.wav");
  sh(["sox", path.join(sharedAudio, "OSR_us_000_0034_8k.wav"), "-r", "16000", "-c", "1", "-b", "16", osr, "trim", "0", "12"]);
  const text = "Please call the front desk at nine. The meeting moved to Thursday, and the report is late again.";
  const raw = path.join(tmp, "tts.wav");
  sh(["espeak-ng", "-v", "en-us", "-s", "150", "-w", raw, text]);
  const clean = path.join(tmp, "espeak.wav");
  sh(["sox", raw, "-r", "16000", "-c", "1", "-b", "16", clean, "pad", "0.5", "1"]);
  const noisy = path.join(tmp, "espeak8k-noise.wav");
  const noise = path.join(tmp, "noise.wav");
  sh(["sox", clean, noise, "synth", "whitenoise", "vol", "0.03"]);
  const mixed = path.join(tmp, "mixed.wav");
  sh(["sox", "-m", clean, noise, mixed]);
  sh(["sox", mixed, "-r", "8000", path.join(tmp, "m8.wav")]);
  sh(["sox", path.join(tmp, "m8.wav"), "-r", "16000", "-b", "16", noisy]);
  out.push({ name: "osr-8k", file: osr }, { name: "espeak", file: clean }, { name: "espeak-8k-noisy", file: noisy });
  return out;
}

/** Final words of one clip streamed at 1x (100-ms frames), partials on. */
async function streamed(svc: Awaited<ReturnType<typeof startTestService>>, model: string, samples: Float32Array): Promise<W[]> {
  const { url } = await createSession(svc, { model, language_config: { languages: ["en"] }, messages_config: { receive_partial_transcripts: true } });
  const client = new RawClient(url);
  await client.opened;
  await client.sendRealTime(chunks(toPcm16(samples), RATE * 0.2));
  client.stop();
  await client.closed;
  const finals = [...new Map(client.messages.filter((m: Msg) => m.type === "transcript" && m.data.is_final).map((m: Msg) => [m.data.id, m.data.utterance])).values()];
  return finals.sort((a, b) => a.start - b.start).flatMap((u) => u.words as W[]);
}

function reference(model: string, ct2: string, files: string[]): Record<string, W[]> {
  const job = JSON.stringify({ model: ct2, beam_size: 5, threads: 1, language: "en", clips: files });
  const py = path.join(cacheDir(), "venv", "bin", "python");
  const r = Bun.spawnSync([py, path.join(import.meta.dir, "faster_whisper_words.py")], { stdin: Buffer.from(job) });
  if (r.exitCode !== 0) throw new Error(`faster-whisper (${model}): ${r.stderr}`);
  const out = JSON.parse(r.stdout.toString()) as { clips: Record<string, { words: { word: string; start: number; end: number; probability: number }[] }> };
  return Object.fromEntries(Object.entries(out.clips).map(([k, v]) => [k, v.words.map((w) => ({ ...w, confidence: w.probability }))]));
}

/** Absolute start and end errors (s) of the words both sides recognized, paired by a WER alignment. */
function errors(ref: W[], hyp: W[]): number[] {
  const n = (ws: W[]) => ws.map((w) => normalizeWord(w.word));
  const { refTo } = align(n(ref), n(hyp));
  const out: number[] = [];
  refTo.forEach((j, i) => {
    if (j >= 0 && n(ref)[i] === n(hyp)[j]) out.push(Math.abs(ref[i]!.start - hyp[j]!.start), Math.abs(ref[i]!.end - hyp[j]!.end));
  });
  return out;
}

/**
 * Per turn (its sound from `start` to `end`, s): |start of its first word − start| and |end of its
 * last word − end|, its words being those whose middle lies within 0.3 s of the turn.
 */
function turnEdgeErrors(turns: { start: number; end: number }[], words: W[]): { starts: number[]; ends: number[] } {
  const starts: number[] = [];
  const ends: number[] = [];
  for (const t of turns) {
    const own = words.filter((w) => (w.start + w.end) / 2 >= t.start - 0.3 && (w.start + w.end) / 2 <= t.end + 0.3);
    if (own.length === 0) continue;
    starts.push(Math.abs(own[0]!.start - t.start));
    ends.push(Math.abs(own[own.length - 1]!.end - t.end));
  }
  return { starts, ends };
}

const ms = (xs: number[]) => `${((xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)) * 1000).toFixed(0)} / ${(quantile(xs, 0.95) * 1000).toFixed(0)}`;

/** Engine CPU seconds per audio second over the clips, alignment on and off (second of two passes). */
async function cpuCost(model: string, audio: Float32Array[]): Promise<{ on: number; off: number }> {
  const cost: Record<string, number> = {};
  for (const alignWords of [false, true]) {
    const e = await WhisperEngine.load({ modelDir: path.join(MODELS, model), assetsDir: path.join(MODELS, "whisper-assets"), alignWords });
    let cpu = 0;
    for (let pass = 0; pass < 2; pass++) {
      const c0 = process.cpuUsage();
      for (const a of audio) await e.transcribe({ audio: a, partial: false, languages: ["en"] });
      const c = process.cpuUsage(c0);
      cpu = (c.user + c.system) / 1e6;
    }
    await e.dispose();
    cost[String(alignWords)] = cpu / (audio.reduce((n, a) => n + a.length, 0) / RATE);
  }
  return { on: cost.true!, off: cost.false! };
}

const models = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["whisper-tiny.en", "whisper-base"];
const tmp = mkdtempSync(path.join(tmpdir(), "bench-words-"));
const set = clips(tmp);
const agent = (await clipSet(() => {})).clips.filter((c) => c.category === "agent");
const svc = await startTestService({ modelsDir: MODELS });
const rows: string[] = [];
const edgeRows: string[] = [];
for (const model of models) {
  const ct2 = await ct2Dir(model);
  if (!ct2) throw new Error(`no CTranslate2 weights for ${model}`);
  const ref = reference(model, ct2, set.map((c) => c.file));
  const all: number[] = [];
  for (const c of set) {
    const samples = readWavFile(c.file).samples;
    const lead = 0.5;
    const padded = new Float32Array(samples.length + 3 * RATE);
    padded.set(samples, lead * RATE);
    const hyp = (await streamed(svc, PUBLIC[model]!, padded)).map((w) => ({ ...w, start: w.start - lead, end: w.end - lead }));
    const e = errors(ref[c.file]!, hyp);
    all.push(...e);
    const mean = e.reduce((a, b) => a + b, 0) / Math.max(1, e.length);
    console.log(`${model} ${c.name}: ${e.length / 2} words, mean ${(mean * 1000).toFixed(0)} ms, p95 ${(quantile(e, 0.95) * 1000).toFixed(0)} ms`);
  }
  // Turn edges on the agent clips: the service streamed at 1x, faster-whisper offline.
  const agentRef = reference(model, ct2, agent.map((c) => c.wav));
  const edges = { service: { starts: [] as number[], ends: [] as number[] }, fw: { starts: [] as number[], ends: [] as number[] } };
  for (const c of agent) {
    const hyp = await streamed(svc, PUBLIC[model]!, readWavFile(c.wav).samples);
    for (const [who, words] of [["service", hyp], ["fw", agentRef[c.wav]!]] as const) {
      const e = turnEdgeErrors(c.turns, words);
      edges[who].starts.push(...e.starts);
      edges[who].ends.push(...e.ends);
    }
  }
  edgeRows.push(`| ${model} | ${edges.service.starts.length} / ${edges.fw.starts.length} | ${ms(edges.service.starts)} | ${ms(edges.fw.starts)} | ${ms(edges.service.ends)} | ${ms(edges.fw.ends)} |`);
  const cost = await cpuCost(model, set.map((c) => readWavFile(c.file).samples));
  const mean = all.reduce((a, b) => a + b, 0) / Math.max(1, all.length);
  rows.push(`| ${model} | ${all.length / 2} | ${(mean * 1000).toFixed(0)} | ${(quantile(all, 0.95) * 1000).toFixed(0)} | ${cost.off.toFixed(3)} → ${cost.on.toFixed(3)} (${(((cost.on - cost.off) / cost.off) * 100).toFixed(1)} %) |`);
}
await svc.stop();
console.log(["| model | words paired | mean boundary error (ms) | p95 (ms) | engine CPU s per audio s, alignment off → on |", "|---|---|---|---|---|", ...rows].join("\n"));
console.log(`\nTurn edges against the sound (${agent.length} voice-agent clips of bench/fidelity), mean / p95 ms:\n`);
console.log(["| model | turns service / fw | first word's start: service | faster-whisper | last word's end: service | faster-whisper |", "|---|---|---|---|---|---|", ...edgeRows].join("\n"));
writeFileSync(path.join(tmp, "table.md"), rows.join("\n"));
// The engines the CPU measurement loaded keep the event loop alive.
process.exit(0);
