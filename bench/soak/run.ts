/**
 * Soak: a steady number of real-time streams against the service for a long time, on real weights,
 * sessions started and finished continuously; the service's RSS and open file descriptors sampled
 * every 10 s. At the end: every session ended normally and is `done`, RSS and descriptors flat
 * (the last window against the first one after the warm-up). See bench/soak/README.md.
 *
 *   bun bench/soak/run.ts [--minutes 30] [--streams 2] [--partials] [--no-end-of-turn]
 *
 * Exit code 0 when every assertion holds, 1 otherwise. The last line printed is the JSON summary.
 */
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Subprocess } from "bun";
import { createTRPCClient, httpLink } from "@trpc/client";
import type { AdminRouter } from "../../server/admin/router.ts";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { loadAverage, rssMb } from "../lib/proc.ts";
import { SHARED_AUDIO, xorshift32 } from "../lib/audio.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const SAMPLE_EVERY_MS = 10_000;
const FRAME_MS = 100;

const { values: args } = parseArgs({
  options: {
    minutes: { type: "string", default: "30" },
    streams: { type: "string", default: "2" },
    partials: { type: "boolean", default: false },
    "no-end-of-turn": { type: "boolean", default: false },
    "models-dir": { type: "string" },
  },
});
const MINUTES = Number(args.minutes);
const STREAMS = Number(args.streams);
if (!(MINUTES > 0) || !(STREAMS >= 1)) {
  console.error("usage: bun bench/soak/run.ts [--minutes N] [--streams K] [--partials] [--no-end-of-turn] [--models-dir DIR]");
  process.exit(2);
}
/** Warm-up left out of the comparison, and the length of the two windows compared (5 and 5 min for 30). */
const WARMUP_S = Math.min(300, (MINUTES * 60) / 6);
const WINDOW_S = Math.min(300, (MINUTES * 60) / 6);
const RSS_TOLERANCE = 0.1;
const FD_TOLERANCE = 5;

const say = (s: string) => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${s}`);

// ── the models: trantoria-1 (whisper-tiny.en), Silero VAD, the end-of-turn model ─────────────────
const installed = path.resolve(args["models-dir"] ?? process.env.MODELS_DIR ?? path.join(ROOT, "models"));
const MODELS = mkdtempSync(path.join(tmpdir(), "soak-models-"));
for (const id of ["whisper-tiny.en", "whisper-assets", "silero-vad", "smart-turn-v3"]) {
  try {
    symlinkSync(path.join(installed, id), path.join(MODELS, id));
  } catch (e) {
    throw new Error(`soak: ${id} is not installed in ${installed} (bun run models -- pull ${id}): ${(e as Error).message}`);
  }
}

// ── the audio: English clips of ../shared/audio, looped, real time in 100 ms frames ───────────────
interface Clip {
  name: string;
  rate: 8000 | 16000;
  pcm: Uint8Array;
}
function clip(name: string): Clip {
  const w = readWavFile(path.join(SHARED_AUDIO, name));
  const out = new Int16Array(w.samples.length);
  for (let i = 0; i < out.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(w.samples[i]! * 32768)));
  return { name, rate: w.sampleRate as 8000 | 16000, pcm: new Uint8Array(out.buffer) };
}
/** A microphone's noise floor (a few LSB), between clips: the service never sees digital zeros for long. */
function quiet(seconds: number, rate: number, seed: number): Uint8Array {
  const out = new Int16Array(Math.round(seconds * rate));
  const next = xorshift32(seed | 1);
  for (let i = 0; i < out.length; i++) out[i] = (next() % 5) - 2;
  return new Uint8Array(out.buffer);
}
const CLIPS16 = ["jfk.wav", "leopard_test.wav", "silero_en_num.wav", "leopard_empty.wav", "leopard_diarization_test.wav"].map(clip);
const CLIP8 = clip("OSR_us_000_0034_8k.wav");

/** Session `n`'s audio: every fifth the 8 kHz clip, otherwise two 16 kHz clips in turn, 1 s apart. */
function sessionAudio(n: number): { rate: 8000 | 16000; pcm: Uint8Array; clips: string[] } {
  const parts: Uint8Array[] = [];
  let rate: 8000 | 16000 = 16000;
  const clips = n % 5 === 4 ? [CLIP8] : [CLIPS16[n % CLIPS16.length]!, CLIPS16[(n + 2) % CLIPS16.length]!];
  rate = clips[0]!.rate;
  parts.push(quiet(0.5, rate, n + 1));
  for (const c of clips) parts.push(c.pcm, quiet(1, rate, n + 7));
  const pcm = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    pcm.set(p, o);
    o += p.length;
  }
  return { rate, pcm, clips: clips.map((c) => c.name) };
}

// ── the service, as a child process ──────────────────────────────────────────────────────────────
async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

const children: Subprocess[] = [];
process.on("exit", () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

async function startService(): Promise<{ proc: Subprocess; base: string }> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "soak-data-"));
  const proc = Bun.spawn([process.execPath, path.join(ROOT, "server/main.ts")], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, MODELS_DIR: MODELS, ADMIN_TOKEN: "soak-admin", LOG_LEVEL: "warn" },
    stdout: "ignore",
    stderr: "inherit",
  });
  children.push(proc);
  const base = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 120_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      /* not yet */
    }
    if (proc.exitCode !== null) throw new Error(`the service exited with ${proc.exitCode}`);
    if (performance.now() > deadline) throw new Error("the service did not answer /health within 120 s");
    await Bun.sleep(50);
  }
  return { proc, base };
}

async function soakKey(base: string): Promise<string> {
  const admin = createTRPCClient<AdminRouter>({ links: [httpLink({ url: `${base}/admin/trpc`, headers: { authorization: "Bearer soak-admin" } })] });
  const account = await admin.accountsCreate.mutate({ name: "soak", plan: { maxConcurrentSessions: 1000 } });
  return (await admin.keysCreate.mutate({ accountId: account.id })).key;
}

// ── sessions ─────────────────────────────────────────────────────────────────────────────────────
interface SessionOutcome {
  id: string;
  stream: number;
  n: number;
  audioS: number;
  closeCode: number;
  ended: boolean;
  finals: number;
  endOfTurns: number;
  /** Seconds from the end of the audio to the socket's close. */
  drainS: number;
}

async function runSession(base: string, key: string, stream: number, n: number): Promise<SessionOutcome> {
  const audio = sessionAudio(n);
  const endOfTurn = !args["no-end-of-turn"] && n % 2 === 0;
  const init = {
    model: "trantoria-1",
    language_config: { languages: ["en"] },
    sample_rate: audio.rate,
    messages_config: { receive_partial_transcripts: args.partials, receive_lifecycle_events: true },
    ...(endOfTurn ? { end_of_turn: {} } : {}),
  };
  const res = await fetch(`${base}/v2/live`, { method: "POST", headers: { "content-type": "application/json", "x-service-key": key }, body: JSON.stringify(init) });
  if (res.status !== 201) throw new Error(`POST /v2/live answered ${res.status}: ${await res.text()}`);
  const { id, url } = (await res.json()) as { id: string; url: string };
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  const out: SessionOutcome = { id, stream, n, audioS: audio.pcm.length / 2 / audio.rate, closeCode: 0, ended: false, finals: 0, endOfTurns: 0, drainS: 0 };
  ws.addEventListener("message", (e) => {
    const m = JSON.parse(String(e.data)) as { type: string; data?: { is_final?: boolean } };
    if (m.type === "transcript" && m.data?.is_final) out.finals++;
    else if (m.type === "end_of_turn") out.endOfTurns++;
    else if (m.type === "end_session") out.ended = true;
  });
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error(`session ${id}: the WebSocket did not open`)), { once: true });
  });
  const frame = (audio.rate * 2 * FRAME_MS) / 1000;
  const t0 = performance.now();
  for (let o = 0, i = 0; o < audio.pcm.length; o += frame, i++) {
    const wait = t0 + i * FRAME_MS - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    if (ws.readyState !== WebSocket.OPEN) break;
    ws.send(audio.pcm.subarray(o, Math.min(o + frame, audio.pcm.length)));
  }
  const sentAt = performance.now();
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "stop_recording" }));
  const timeout = new Promise<number>((resolve) => setTimeout(() => resolve(-1), 180_000));
  out.closeCode = await Promise.race([closed, timeout]);
  out.drainS = (performance.now() - sentAt) / 1000;
  if (out.closeCode === -1) ws.close();
  return out;
}

// ── sampling ─────────────────────────────────────────────────────────────────────────────────────
interface Sample {
  t: number;
  rssMb: number;
  fds: number;
  completed: number;
  active: number;
  load: number;
}
const fdCount = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const r1 = (x: number) => Math.round(x * 10) / 10;

// ── the run ──────────────────────────────────────────────────────────────────────────────────────
say(`${MINUTES} min, ${STREAMS} real-time streams, partials ${args.partials ? "on" : "off"}, end_of_turn ${args["no-end-of-turn"] ? "off" : "every other session"}, models ${installed}, load average ${loadAverage()}`);
const svc = await startService();
const pid = svc.proc.pid;
const key = await soakKey(svc.base);
say(`service pid ${pid} at ${svc.base}; RSS ${r1(rssMb(pid))} MB, ${fdCount(pid)} fds`);

const outcomes: SessionOutcome[] = [];
const failures: string[] = [];
let active = 0;
let sessionNo = 0;
const start = performance.now();
const endAt = start + MINUTES * 60_000;

async function streamLoop(stream: number): Promise<void> {
  while (performance.now() < endAt) {
    const n = sessionNo++;
    active++;
    try {
      const o = await runSession(svc.base, key, stream, n);
      outcomes.push(o);
      if (o.closeCode !== 1000 || !o.ended) failures.push(`session ${o.id} (#${n}): close ${o.closeCode}, end_session ${o.ended}`);
    } catch (e) {
      failures.push(`session #${n}: ${(e as Error).message}`);
      await Bun.sleep(1000);
    } finally {
      active--;
    }
  }
}

const samples: Sample[] = [];
const sampler = setInterval(() => {
  const s: Sample = { t: (performance.now() - start) / 1000, rssMb: rssMb(pid), fds: fdCount(pid), completed: outcomes.length, active, load: loadAverage() };
  samples.push(s);
  if (samples.length % 6 === 0) say(`${r1(s.t / 60)} min: RSS ${r1(s.rssMb)} MB, ${s.fds} fds, ${s.completed} sessions done, ${s.active} active, load ${s.load}`);
}, SAMPLE_EVERY_MS);

// Streams start a few seconds apart so that their utterances do not line up.
await Promise.all(Array.from({ length: STREAMS }, (_, s) => Bun.sleep(s * 3000).then(() => streamLoop(s))));
clearInterval(sampler);
const ranS = (performance.now() - start) / 1000;

// Every session the service knows of is `done` (read through the API, as a client would).
let notDone = 0;
for (const o of outcomes) {
  const r = await fetch(`${svc.base}/v2/live/${o.id}`, { headers: { "x-service-key": key } });
  const status = r.ok ? ((await r.json()) as { status: string }).status : `HTTP ${r.status}`;
  if (status !== "done") {
    notDone++;
    failures.push(`session ${o.id}: status ${status}`);
  }
}
svc.proc.kill("SIGTERM");
await svc.proc.exited;

// ── verdict ──────────────────────────────────────────────────────────────────────────────────────
const first = samples.filter((s) => s.t >= WARMUP_S && s.t < WARMUP_S + WINDOW_S);
const last = samples.filter((s) => s.t >= ranS - WINDOW_S);
const rssFirst = median(first.map((s) => s.rssMb));
const rssLast = median(last.map((s) => s.rssMb));
const fdFirst = median(first.map((s) => s.fds));
const fdLast = median(last.map((s) => s.fds));
const rssFlat = Math.abs(rssLast - rssFirst) <= RSS_TOLERANCE * rssFirst;
const fdsFlat = Math.abs(fdLast - fdFirst) <= FD_TOLERANCE;
if (first.length === 0 || last.length === 0) failures.push("too short a run to compare windows");
if (!rssFlat) failures.push(`RSS not flat: ${r1(rssFirst)} → ${r1(rssLast)} MB (more than ${RSS_TOLERANCE * 100} %)`);
if (!fdsFlat) failures.push(`file descriptors not flat: ${fdFirst} → ${fdLast} (more than ±${FD_TOLERANCE})`);
if (outcomes.length === 0) failures.push("no session completed");

const audioS = outcomes.reduce((s, o) => s + o.audioS, 0);
const summary = {
  minutes: r1(ranS / 60),
  streams: STREAMS,
  partials: args.partials,
  sessions_completed: outcomes.length,
  sessions_not_done: notDone,
  sessions_with_end_of_turn: outcomes.filter((o) => o.endOfTurns > 0).length,
  audio_minutes: r1(audioS / 60),
  finals: outcomes.reduce((s, o) => s + o.finals, 0),
  drain_p95_s: r1([...outcomes.map((o) => o.drainS)].sort((a, b) => a - b)[Math.floor(0.95 * (outcomes.length - 1))] ?? NaN),
  window_minutes: r1(WINDOW_S / 60),
  warmup_minutes: r1(WARMUP_S / 60),
  rss_mb: { start: r1(samples[0]?.rssMb ?? NaN), first_window: r1(rssFirst), last_window: r1(rssLast), end: r1(samples.at(-1)?.rssMb ?? NaN), max: r1(Math.max(...samples.map((s) => s.rssMb))) },
  fds: { start: samples[0]?.fds ?? null, first_window: fdFirst, last_window: fdLast, end: samples.at(-1)?.fds ?? null, max: Math.max(...samples.map((s) => s.fds)) },
  load_average: { start: samples[0]?.load ?? null, max: Math.max(...samples.map((s) => s.load)) },
  rss_flat: rssFlat,
  fds_flat: fdsFlat,
  ok: failures.length === 0,
  failures: failures.slice(0, 20),
};
const resultsDir = path.join(ROOT, "bench/results");
mkdirSync(resultsDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
writeFileSync(path.join(resultsDir, `soak-${stamp}.json`), JSON.stringify({ summary, samples, sessions: outcomes }, null, 1));
say(`per-minute samples and sessions: bench/results/soak-${stamp}.json`);
for (const f of failures.slice(0, 20)) say(`FAIL ${f}`);
console.log(JSON.stringify(summary));
process.exit(failures.length === 0 ? 0 : 1);
