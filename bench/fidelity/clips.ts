/**
 * bench/fidelity's clip set, built by the bench itself: sentences of sentences.ts synthesized by
 * espeak-ng and flite (several voices, variants and rates), joined into clips with silences, then
 * telephone (8 kHz G.711 via sox) and noisy (pink, brown, babble at 20 and 10 dB SNR) versions,
 * plus the shared real English recordings. Deterministic (fixed texts, voices, seeds); cached under
 * bench/results/fidelity/clips/<key>/, the key a hash of this file, sentences.ts and the tools'
 * versions, so a change of the generator makes a new set.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { encodeWav, readWavFile } from "../../workers/dsp/wav.ts";
import { referenceTexts } from "../../test/asr/stream.ts";
import { sharedAudio } from "../../test/helpers/server.ts";
import { xorshift32 } from "../lib/audio.ts";
import type { Turn } from "./metrics.ts";
import { AGENT_TURNS, BABBLE, NUMBER_DICTATIONS, READINGS } from "./sentences.ts";

export const CATEGORIES = ["agent", "numbers", "reading", "telephone", "noise20", "noise10", "real"] as const;
export type Category = (typeof CATEGORIES)[number];

export interface Clip {
  id: string;
  category: Category;
  /** What it is made of: voices, codec, noise and measured SNR, longest pause inside a turn. */
  description: string;
  turns: Turn[];
  durationS: number;
  /** What the service is sent: a WAV file (16-bit PCM, mono, its own rate)… */
  wav: string;
  /** …or, for the telephone clips, these G.711 bytes (8 kHz) with this encoding. */
  g711?: { encoding: "wav/ulaw" | "wav/alaw"; file: string };
  /** What faster-whisper and WhisperLive get (PCM; for G.711 clips the decoded round trip). */
  peerWav: string;
  /** The same at 16 kHz (WhisperLive takes 16 kHz floats); equal to peerWav when that is 16 kHz. */
  peer16k: string;
}

const RATE = 16000;
const ROOT = path.resolve(import.meta.dir, "../..");
export const CLIPS_ROOT = path.join(ROOT, "bench", "results", "fidelity", "clips");

// ── voices ─────────────────────────────────────────────────────────────────

/** `espeak:<voice>:<words per minute>` or `flite:<voice>`. */
const VOICES = [
  "espeak:en-us:165",
  "flite:slt",
  "espeak:en-gb+m7:140",
  "flite:rms",
  "espeak:en-us+f3:185",
  "flite:awb",
  "espeak:en-gb-scotland+f4:155",
  "flite:kal16",
  "espeak:en-us+m3:205",
];

function run(cmd: string[]): void {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${p.stderr.toString().slice(-500)}`);
}

const toolVersions = () =>
  ["espeak-ng --version", "flite --version", "sox --version"]
    .map((c) => {
      const tool = c.split(" ")[0]!;
      if (!Bun.which(tool)) throw new Error(`${tool} missing: apt-get install -y espeak-ng flite sox`);
      const p = Bun.spawnSync(c.split(" "), { stdout: "pipe", stderr: "pipe" });
      return (p.stdout.toString() + p.stderr.toString()).trim().split("\n")[0];
    })
    .join("|");

/** 16 kHz mono samples of `text` in `voice`, trimmed to the speech (first/last 10-ms frame above −50 dBFS, ±20 ms). */
function synth(voice: string, text: string, tmp: string): Float32Array {
  const raw = path.join(tmp, "tts.wav");
  const out = path.join(tmp, "tts16.wav");
  const [engine, name, rate] = voice.split(":");
  if (engine === "espeak") run(["espeak-ng", "-v", name!, "-s", rate!, "-w", raw, text]);
  else run(["flite", "-voice", name!, "-t", text, "-o", raw]);
  run(["sox", raw, "-r", String(RATE), "-c", "1", "-b", "16", "-e", "signed-integer", out]);
  const x = readWavFile(out).samples;
  const [s, e] = speechBounds(x, 0.00316);
  return x.slice(Math.max(0, s - 320), Math.min(x.length, e + 320));
}

/** First and last 10-ms frame (sample indices) with RMS above `threshold`. */
function speechBounds(x: Float32Array, threshold: number): [number, number] {
  const frame = RATE / 100;
  let first = -1;
  let last = -1;
  for (let i = 0; i + frame <= x.length; i += frame) {
    let e = 0;
    for (let j = i; j < i + frame; j++) e += x[j]! * x[j]!;
    if (Math.sqrt(e / frame) > threshold) {
      if (first < 0) first = i;
      last = i + frame;
    }
  }
  return first < 0 ? [0, x.length] : [first, last];
}

/** Longest run of 10-ms frames below −40 dBFS inside `x` (seconds): the longest pause within a turn. */
function longestPause(x: Float32Array): number {
  const frame = RATE / 100;
  let best = 0;
  let run = 0;
  for (let i = 0; i + frame <= x.length; i += frame) {
    let e = 0;
    for (let j = i; j < i + frame; j++) e += x[j]! * x[j]!;
    run = Math.sqrt(e / frame) < 0.01 ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best / 100;
}

// ── assembling ─────────────────────────────────────────────────────────────

interface Built {
  samples: Float32Array;
  turns: Turn[];
  maxPause: number;
}

/** Turns said in `voice` with the gaps given (seconds) between them, 0.5 s before, 1.5 s after. */
function assemble(voice: string, texts: string[], gaps: number[], tmp: string): Built {
  const parts: Float32Array[] = [new Float32Array(RATE / 2)];
  let t = 0.5;
  const turns: Turn[] = [];
  let maxPause = 0;
  texts.forEach((text, k) => {
    const x = synth(voice, text, tmp);
    maxPause = Math.max(maxPause, longestPause(x));
    turns.push({ text, start: t, end: t + x.length / RATE });
    parts.push(x);
    t += x.length / RATE;
    const gap = k < texts.length - 1 ? gaps[k]! : 1.5;
    parts.push(new Float32Array(Math.round(gap * RATE)));
    t += Math.round(gap * RATE) / RATE;
  });
  return { samples: concat(parts), turns, maxPause };
}

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** A microphone's noise floor (about −66 dBFS), as bench/lib/audio.ts adds: no digital zeros. */
function addFloor(x: Float32Array, seed: number): Float32Array {
  const next = xorshift32(seed);
  return x.map((v) => v + 0.0005 * ((next() >>> 0) / 0x80000000 - 1));
}

const power = (x: Float32Array, from = 0, to = x.length) => {
  let e = 0;
  for (let i = from; i < to; i++) e += x[i]! * x[i]!;
  return e / Math.max(1, to - from);
};

/** Pink (Paul Kellet's filter) or brown (leaky integrated) noise from white noise of a fixed seed. */
function coloredNoise(kind: "pink" | "brown", n: number, seed: number): Float32Array {
  const next = xorshift32(seed);
  const out = new Float32Array(n);
  let b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, brown = 0;
  for (let i = 0; i < n; i++) {
    const w = next() / 0x80000000;
    if (kind === "pink") {
      b0 = 0.99886 * b0 + w * 0.0555179;
      b1 = 0.99332 * b1 + w * 0.0750759;
      b2 = 0.969 * b2 + w * 0.153852;
      b3 = 0.8665 * b3 + w * 0.3104856;
      b4 = 0.55 * b4 + w * 0.5329522;
      b5 = -0.7616 * b5 - w * 0.016898;
      out[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362;
      b6 = w * 0.115926;
    } else {
      brown = 0.998 * brown + w * 0.05;
      out[i] = brown;
    }
  }
  return out;
}

/** Babble: three other voices saying the BABBLE sentences at once, looped to `n` samples. */
function babble(n: number, tmp: string, voiceOffset: number): Float32Array {
  const out = new Float32Array(n);
  for (let v = 0; v < 3; v++) {
    const voice = VOICES[(voiceOffset + 2 * v + 1) % VOICES.length]!;
    const talk = concat(BABBLE.map((s, k) => synth(voice, BABBLE[(k + v) % BABBLE.length]!, tmp)).flatMap((x) => [x, new Float32Array(RATE / 5)]));
    const shift = Math.round(v * 0.7 * RATE);
    for (let i = 0; i < n; i++) out[i]! += talk[(i + shift) % talk.length]!;
  }
  return out;
}

/** `clean` + `noise` scaled to `snrDb` (speech power over the turns / noise power over the clip); returns the mix and the measured SNR. */
function mix(clean: Float32Array, turns: Turn[], noise: Float32Array, snrDb: number): { x: Float32Array; snr: number } {
  let ps = 0;
  let n = 0;
  for (const t of turns) {
    const a = Math.round(t.start * RATE);
    const b = Math.round(t.end * RATE);
    ps += power(clean, a, b) * (b - a);
    n += b - a;
  }
  ps /= n;
  const g = Math.sqrt(ps / (power(noise) * 10 ** (snrDb / 10)));
  const x = clean.map((v, i) => v + g * noise[i]!);
  const peak = x.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  const y = peak > 0.98 ? x.map((v) => (v * 0.98) / peak) : x;
  const scaled = noise.map((v) => g * v);
  return { x: y, snr: 10 * Math.log10(ps / power(scaled)) };
}

function writeWav(file: string, x: Float32Array, rate = RATE): void {
  writeFileSync(file, encodeWav(x, rate));
}

// ── the set ────────────────────────────────────────────────────────────────

/** Deterministic gaps in [lo, hi] seconds (100-ms steps). */
function gaps(seed: number, n: number, lo: number, hi: number): number[] {
  const next = xorshift32(seed);
  return Array.from({ length: n }, () => lo + Math.round((((next() >>> 0) / 2 ** 32) * (hi - lo)) * 10) / 10);
}

/** Agent turns of clip k: seven turns from the list (rotating), "Two." always the fourth. */
function agentTexts(k: number, count = 7): string[] {
  const pool = AGENT_TURNS.filter((t) => t !== "Two.");
  const picked = Array.from({ length: count - 1 }, (_, i) => pool[(k * 6 + i) % pool.length]!);
  picked.splice(3, 0, "Two.");
  return picked;
}

const SHARED_ENGLISH = ["jfk.wav", "leopard_test.wav", "leopard_diarization_test.wav", "OSR_us_000_0034_8k.wav"];

async function build(dir: string): Promise<Clip[]> {
  const tmp = path.join(dir, "tmp");
  mkdirSync(tmp, { recursive: true });
  const clips: Clip[] = [];
  const save = (c: Omit<Clip, "wav" | "peerWav" | "peer16k">, x: Float32Array, seed: number) => {
    const wav = path.join(dir, `${c.id}.wav`);
    writeWav(wav, addFloor(x, seed));
    clips.push({ ...c, wav, peerWav: wav, peer16k: wav });
  };
  const describe = (voice: string, b: Built) => `${voice}, longest pause within a turn ${b.maxPause.toFixed(2)} s`;

  // Voice-agent turns: 1–2 s of silence between them.
  for (let k = 0; k < 6; k++) {
    const voice = VOICES[k % VOICES.length]!;
    const b = assemble(voice, agentTexts(k), gaps(100 + k, 6, 1, 2), tmp);
    save({ id: `agent-${k}`, category: "agent", description: describe(voice, b), turns: b.turns, durationS: b.samples.length / RATE }, b.samples, 200 + k);
  }
  // Dictated numbers: one breath, two dictations joined.
  for (let k = 0; k < 6; k++) {
    const voice = VOICES[(k + 3) % VOICES.length]!;
    const a = NUMBER_DICTATIONS[k % NUMBER_DICTATIONS.length]!;
    const c = NUMBER_DICTATIONS[(k + 3) % NUMBER_DICTATIONS.length]!;
    const b = assemble(voice, [`${a.replace(/\.$/, ",")} and ${c[0]!.toLowerCase()}${c.slice(1)}`], [], tmp);
    save({ id: `numbers-${k}`, category: "numbers", description: describe(voice, b), turns: b.turns, durationS: b.samples.length / RATE }, b.samples, 300 + k);
  }
  // Unpaused reading, one turn of ≥ 30 s.
  for (let k = 0; k < READINGS.length; k++) {
    const voice = VOICES[(5 * k + 1) % VOICES.length]!;
    const b = assemble(voice, [`${READINGS[k]!}.`], [], tmp);
    save({ id: `reading-${k}`, category: "reading", description: describe(voice, b), turns: b.turns, durationS: b.samples.length / RATE }, b.samples, 400 + k);
  }
  // Telephone: agent turns then a dictation, 8 kHz G.711 (band-limited 300–3400 Hz) via sox.
  for (let k = 0; k < 4; k++) {
    const voice = VOICES[(k * 2 + 4) % VOICES.length]!;
    const texts = [...agentTexts(k + 10, 5), NUMBER_DICTATIONS[(k + 5) % NUMBER_DICTATIONS.length]!];
    const b = assemble(voice, texts, gaps(500 + k, texts.length - 1, 1, 2), tmp);
    const law = k % 2 === 0 ? "u-law" : "a-law";
    const encoding = k % 2 === 0 ? "wav/ulaw" : "wav/alaw";
    const id = `telephone-${k}`;
    const clean = path.join(tmp, `${id}-clean.wav`);
    writeWav(clean, addFloor(b.samples, 600 + k));
    const g711 = path.join(dir, `${id}.${law === "u-law" ? "ul" : "al"}`);
    run(["sox", clean, "-t", "raw", "-e", law, "-b", "8", "-c", "1", g711, "sinc", "300-3400", "rate", "8000"]);
    const peerWav = path.join(dir, `${id}-rt8k.wav`);
    run(["sox", "-t", "raw", "-r", "8000", "-e", law, "-b", "8", "-c", "1", g711, "-e", "signed-integer", "-b", "16", peerWav]);
    const peer16k = path.join(dir, `${id}-rt16k.wav`);
    run(["sox", peerWav, "-r", String(RATE), peer16k]);
    clips.push({
      id,
      category: "telephone",
      description: `${describe(voice, b)}; 8 kHz ${law} (sox, 300–3400 Hz), sent as ${encoding}`,
      turns: b.turns,
      durationS: b.samples.length / RATE,
      wav: peerWav,
      g711: { encoding, file: g711 },
      peerWav,
      peer16k,
    });
  }
  // Noise at 20 and 10 dB SNR: pink, brown, babble of three other voices.
  for (const snr of [20, 10] as const) {
    const kinds = ["pink", "brown", "babble"] as const;
    for (let k = 0; k < kinds.length; k++) {
      const kind = kinds[k]!;
      const voice = VOICES[(k * 3 + (snr === 10 ? 2 : 0)) % VOICES.length]!;
      const texts = [...agentTexts(k + 20 + snr, 4), NUMBER_DICTATIONS[(k + snr) % NUMBER_DICTATIONS.length]!];
      const b = assemble(voice, texts, gaps(700 + snr + k, texts.length - 1, 1, 2), tmp);
      const noise = kind === "babble" ? babble(b.samples.length, tmp, k + snr) : coloredNoise(kind, b.samples.length, 800 + snr + k);
      const m = mix(addFloor(b.samples, 900 + k), b.turns, noise, snr);
      const id = `noise${snr}-${k}`;
      const wav = path.join(dir, `${id}.wav`);
      writeWav(wav, m.x);
      clips.push({ id, category: `noise${snr}`, description: `${describe(voice, b)}; ${kind} noise at ${m.snr.toFixed(1)} dB SNR`, turns: b.turns, durationS: b.samples.length / RATE, wav, peerWav: wav, peer16k: wav });
    }
  }
  // The shared real recordings (English, with a reference), one turn each.
  const refs = await referenceTexts(sharedAudio);
  for (const name of SHARED_ENGLISH) {
    const file = path.join(sharedAudio, name);
    if (!existsSync(file) || !refs.has(name)) continue;
    const wav = readWavFile(file);
    let peer16k = file;
    if (wav.sampleRate !== RATE) {
      peer16k = path.join(dir, `${name.replace(/\.wav$/, "")}-16k.wav`);
      run(["sox", file, "-r", String(RATE), peer16k]);
    }
    const [s, e] = speechBounds(wav.sampleRate === RATE ? wav.samples : readWavFile(peer16k).samples, 0.01);
    clips.push({
      id: `real-${name.replace(/\.wav$/, "")}`,
      category: "real",
      description: `shared recording ${name} (${wav.sampleRate} Hz)`,
      turns: [{ text: refs.get(name)!.replace(/\[spk\d+\]/g, " "), start: s / RATE, end: e / RATE }],
      durationS: wav.samples.length / wav.sampleRate,
      wav: file,
      peerWav: file,
      peer16k,
    });
  }
  rmSync(tmp, { recursive: true, force: true });
  return clips;
}

/** The clip set: built once per generator version into bench/results/fidelity/clips/<key>/. */
export async function clipSet(log: (s: string) => void = console.log): Promise<{ key: string; clips: Clip[] }> {
  const source = [import.meta.path, path.join(import.meta.dir, "sentences.ts")].map((f) => readFileSync(f, "utf8")).join("\0");
  const key = createHash("sha256").update(source).update(toolVersions()).digest("hex").slice(0, 12);
  const dir = path.join(CLIPS_ROOT, key);
  const manifest = path.join(dir, "manifest.json");
  if (existsSync(manifest)) return { key, clips: JSON.parse(readFileSync(manifest, "utf8")) as Clip[] };
  log(`building the clip set into ${path.relative(ROOT, dir)} …`);
  const building = `${dir}.tmp`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  const clips = await build(building);
  const fix = (p: string) => p.replace(building, dir);
  const final = clips.map((c) => ({ ...c, wav: fix(c.wav), peerWav: fix(c.peerWav), peer16k: fix(c.peer16k), ...(c.g711 ? { g711: { ...c.g711, file: fix(c.g711.file) } } : {}) }));
  writeFileSync(path.join(building, "manifest.json"), JSON.stringify(final, null, 2));
  rmSync(dir, { recursive: true, force: true });
  renameSync(building, dir);
  // Sets of earlier generator versions are stale.
  for (const old of readdirSync(CLIPS_ROOT)) if (old !== key) rmSync(path.join(CLIPS_ROOT, old), { recursive: true, force: true });
  return { key, clips: final };
}

/** SHA-256 (16 hex) of a file's bytes: the peers' cache key. */
export const fileHash = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex").slice(0, 16);

if (import.meta.main) {
  const { key, clips } = await clipSet();
  for (const c of clips) console.log(`${c.id}\t${c.durationS.toFixed(1)} s\t${c.turns.length} turns\t${c.description}`);
  console.log(`${clips.length} clips, ${(clips.reduce((n, c) => n + c.durationS, 0) / 60).toFixed(1)} min (set ${key})`);
}
