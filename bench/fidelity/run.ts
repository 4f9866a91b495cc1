/**
 * Fidelity benchmark: on a clip set it builds itself (clips.ts: synthesized voice-agent turns,
 * dictated numbers, unpaused reading, telephone G.711, noise at 20/10 dB SNR, and the shared real
 * English recordings), each clip streamed at 1× real time through the official SDK with the
 * WebSocket's default options (partials and speech events on, 100-ms chunks) to an in-process
 * service; beside it faster-whisper decoding the same audio offline on the same weights (original
 * CTranslate2 files, same beam) and WhisperLive streaming it live on them. Per category and model:
 * WER of each system, dropped turns, dropped VAD segments, repetition loops, insertion bursts,
 * duplicated committed text, final lag beyond the endpointing window; pooled WER ratio
 * service / faster-whisper. Definitions: bench/fidelity/README.md.
 *
 *   bun bench/fidelity/run.ts [--models whisper-tiny.en,whisper-base] [--categories agent,numbers,…]
 *                             [--quick] [--service-only] [--systems service,faster-whisper,whisperlive]
 *                             [--per-category N] [--clips agent-0,real-jfk] [--threads 1]
 *                             [--endpointing 0.1] [--profile low_latency] [--engine-threads 2]
 *                             [--init '{"turn_router":true}']
 *
 * `--quick`: 2 clips per category, whisper-tiny.en only (unless --models). `--service-only`: stream
 * the service only; the peers' columns come from their cache (bench/results/fidelity/peers/, keyed
 * by the audio's hash, model, beam and language) when present. Results: printed, and
 * bench/results/fidelity.json. `--endpointing`, `--profile`, `--init`: the session's init body
 * beyond the defaults (the lag column stays "beyond the endpointing window" asked for);
 * `--engine-threads`: the service's engine worker threads (default 1; the service's own default is
 * one per core, where a lone final's encoder uses every core).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { liveDefaults } from "../../server/options/defaults.ts";
import { installed, modelsDir, vadModelsDir } from "../../test/asr/models.ts";
import { streamClip } from "../../test/asr/stream.ts";
import { lentCoordinator, sharedAudio, startTestService } from "../../test/helpers/server.ts";
import { warmUpRequests } from "../../server/health/warm-up.ts";
import { catalogueEntry } from "../../workers/catalogue/entries.ts";
import { InProcessCoordinator } from "../../workers/coordinator/in-process.ts";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { DEFAULT_DECODING } from "../../workers/engines/whisper/decoding-options.ts";
import { startWhisperLive, whisperLiveStream } from "../lib/whisperlive.ts";
import { ct2Dir, fasterWhisper } from "../wer/ct2.ts";
import { CATEGORIES, type Category, type Clip, clipSet, fileHash } from "./clips.ts";
import { confidenceLines, type ScoredWord } from "./confidence.ts";
import { type ClipMetrics, clipMetrics, droppedVadSegments, type Final, quantile } from "./metrics.ts";

process.env.LOG_LEVEL ??= "warn"; // the in-process service's per-session info lines
const ROOT = path.resolve(import.meta.dir, "../..");
const RESULTS = path.join(ROOT, "bench", "results");
const PEERS = path.join(RESULTS, "fidelity", "peers");
const { values: args } = parseArgs({
  options: {
    models: { type: "string" },
    categories: { type: "string" },
    quick: { type: "boolean", default: false },
    "service-only": { type: "boolean", default: false },
    systems: { type: "string", default: "service,faster-whisper,whisperlive" },
    "per-category": { type: "string" },
    clips: { type: "string" },
    threads: { type: "string", default: "1" },
    endpointing: { type: "string" },
    profile: { type: "string" },
    init: { type: "string" },
    "engine-threads": { type: "string", default: "1" },
  },
});
const THREADS = Number(args.threads);
const SYSTEMS = args["service-only"] ? ["service"] : args.systems!.split(",");
const MODELS = (args.models ?? (args.quick ? "whisper-tiny.en" : "whisper-tiny.en,whisper-base")).split(",");
const PER_CATEGORY = args["per-category"] ? Number(args["per-category"]) : args.quick ? 2 : Infinity;
const ENDPOINTING = args.endpointing !== undefined ? Number(args.endpointing) : liveDefaults.endpointing;
/** The init body's members beyond the default messages. */
const INIT: Record<string, unknown> = {
  ...(args.init ? (JSON.parse(args.init) as Record<string, unknown>) : {}),
  ...(args.endpointing !== undefined ? { endpointing: ENDPOINTING } : {}),
  ...(args.profile ? { profile: args.profile } : {}),
};
/** A turn's final later than this beyond the endpointing window is listed among the failures. */
const LATE_S = 2;

/** The runs: a catalogue entry, the public model it serves, the languages asked for (as a client of that model would). */
const RUNS: Record<string, { publicModel: string; languages?: string[] }> = {
  "whisper-tiny.en": { publicModel: "trantoria-1", languages: ["en"] },
  "whisper-base": { publicModel: "solaria-1" },
};

// ── clips ──────────────────────────────────────────────────────────────────

const set = await clipSet();
const categories = (args.categories?.split(",") ?? [...CATEGORIES]) as Category[];
for (const c of categories) if (!CATEGORIES.includes(c)) throw new Error(`unknown category ${c} (${CATEGORIES.join(", ")})`);
const clips = categories.flatMap((cat) => set.clips.filter((c) => c.category === cat && (!args.clips || args.clips.split(",").includes(c.id))).slice(0, PER_CATEGORY));
const totalS = clips.reduce((n, c) => n + c.durationS, 0);
console.log(`clip set ${set.key}: ${clips.length} clips, ${(totalS / 60).toFixed(1)} min of audio; models ${MODELS.join(", ")}; systems ${SYSTEMS.join(", ")}`);

// ── systems ────────────────────────────────────────────────────────────────

interface ServiceRun {
  finals: Final[];
  partials: number;
  emptyFinals: number;
  vadSegments: { start: number; end: number }[];
  wallS: number;
}

const coordinator = await InProcessCoordinator.create({ modelsDir, threads: Number(args["engine-threads"]), queueLimit: 50, sessionThreads: THREADS });
const svc = await startTestService({ modelsDir: vadModelsDir, coordinator: lentCoordinator(coordinator) });
const caps = await coordinator.capabilities();
// Loaded and warmed as the service does at start (ENGINE_WARM_UP, the default): the first clip
// does not pay for loading the engines, nor the wider encoder of a lone decode.
await coordinator.warm(warmUpRequests());

/** The WebSocket's default messages: partials, finals, speech events (explicit, as the defaults are). */
const DEFAULT_MESSAGES = { messages_config: { receive_partial_transcripts: true, receive_final_transcripts: true, receive_speech_events: true } };

async function streamService(clip: Clip, publicModel: string, languages?: string[], realtime = true): Promise<ServiceRun> {
  const r = await streamClip({
    apiUrl: svc.running.url,
    key: svc.key,
    model: publicModel,
    wavPath: clip.wav,
    languages,
    init: { ...DEFAULT_MESSAGES, ...INIT },
    realtime,
    timeoutMs: 180_000,
    ...(clip.g711 ? { g711: { encoding: clip.g711.encoding, sampleRate: 8000, bytes: new Uint8Array(readFileSync(clip.g711.file)) } } : {}),
  });
  const finals: Final[] = [];
  let partials = 0;
  let emptyFinals = 0;
  const vadSegments: ServiceRun["vadSegments"] = [];
  let open: number | null = null;
  for (const m of r.received) {
    if (m.type === "transcript") {
      const u = m.data.utterance as { text: string; start: number; end: number; words: ScoredWord[]; language: string };
      if (!m.data.is_final) partials++;
      else if (u.text.trim() === "") emptyFinals++;
      else finals.push({ text: u.text.trim(), start: u.start, end: u.end, at: m.at, words: u.words.map(({ word, confidence }) => ({ word, confidence })), language: u.language });
    } else if (m.type === "speech_start") open = m.data.time as number;
    else if (m.type === "speech_end" && open !== null) {
      vadSegments.push({ start: open, end: m.data.time as number });
      open = null;
    }
  }
  return { finals, partials, emptyFinals, vadSegments, wallS: r.wallSeconds };
}

interface PeerRun {
  finals: Final[];
  /** WhisperLive: segments never completed (taken with their last text). */
  uncompleted?: number;
  version?: string;
}

const cachePath = (kind: string, model: string, lang: string, file: string, extra = "") => path.join(PEERS, `${kind}-${model}-${lang}${extra}-${fileHash(file)}.json`);
const readCache = (p: string): PeerRun | null => (existsSync(p) ? (JSON.parse(readFileSync(p, "utf8")) as PeerRun) : null);
const writeCache = (p: string, r: PeerRun) => {
  mkdirSync(PEERS, { recursive: true });
  writeFileSync(p, JSON.stringify(r));
};

/** faster-whisper on each clip's peer audio, from the cache or decoded now (one process for all missing clips). */
async function fasterWhisperRuns(entry: string, ct2: string | null, beamSize: number, language: string | undefined, run: boolean): Promise<Map<string, PeerRun>> {
  const out = new Map<string, PeerRun>();
  const key = (c: Clip) => cachePath("fw", entry, language ?? "auto", c.peerWav, `-b${beamSize}`);
  const missing: Clip[] = [];
  for (const c of clips) {
    const hit = readCache(key(c));
    if (hit) out.set(c.id, hit);
    else missing.push(c);
  }
  if (run && ct2 && missing.length > 0) {
    console.log(`  faster-whisper: decoding ${missing.length} clip(s)…`);
    const fw = await fasterWhisper({ model: ct2, beamSize, threads: THREADS, language, clips: missing.map((c) => c.peerWav) });
    for (const c of missing) {
      const r = fw.clips[c.peerWav]!;
      const peer: PeerRun = { finals: r.segments.map((s) => ({ text: s.text, start: s.start, end: s.end })), version: fw.version };
      writeCache(key(c), peer);
      out.set(c.id, peer);
    }
  }
  return out;
}

/** WhisperLive streaming each clip at 1× real time, from the cache or streamed now. */
async function whisperLiveRuns(entry: string, ct2: string | null, language: string | undefined, run: boolean): Promise<Map<string, PeerRun>> {
  const out = new Map<string, PeerRun>();
  const key = (c: Clip) => cachePath("wl", entry, language ?? "auto", c.peer16k);
  const missing: Clip[] = [];
  for (const c of clips) {
    const hit = readCache(key(c));
    if (hit) out.set(c.id, hit);
    else missing.push(c);
  }
  if (!run || !ct2 || missing.length === 0) return out;
  let server;
  try {
    server = await startWhisperLive({ ct2, threads: THREADS, vadModelsDir });
  } catch (e) {
    console.log(`  WhisperLive unavailable: ${(e as Error).message}`);
    return out;
  }
  try {
    for (const c of missing) {
      const t0 = performance.now() + 300;
      const seen = await whisperLiveStream({ port: server.port, ct2, samples: readWavFile(c.peer16k).samples, t0, uid: `fidelity-${c.id}`, language: language ?? null, maxWaitMs: 15_000, quietMs: 5000 });
      // Completed segments are finals. WhisperLive revises an open segment (its start may move,
      // giving it a new key) and completes it only once its text came out unchanged several times,
      // so a clip's last segment may still be open when the client stops waiting: the last open
      // segment seen, when it lies after every completed one, counts with its last text and no
      // arrival (no lag); earlier open versions were replaced and are not counted.
      const completed = seen.filter((s) => s.final);
      const lastSeen = seen[seen.length - 1];
      const doneEnd = Math.max(0, ...completed.map((s) => s.end));
      const open = lastSeen && !lastSeen.final && lastSeen.start >= doneEnd - 0.3 ? [lastSeen] : [];
      const segs = [...completed, ...open].sort((a, b) => a.start - b.start).filter((s) => s.text.trim() !== "");
      const peer: PeerRun = {
        finals: segs.map((s) => ({ text: s.text.trim(), start: s.start, end: s.end, ...(s.final ? { at: (s.at - t0) / 1000 } : {}) })),
        uncompleted: open.length,
        version: "0.10.0",
      };
      writeCache(key(c), peer);
      out.set(c.id, peer);
      console.log(`  WhisperLive ${c.id}: ${peer.finals.map((f) => f.text).join(" | ")}`);
    }
  } finally {
    server.stop();
  }
  return out;
}

// ── the run ────────────────────────────────────────────────────────────────

interface Row {
  model: string;
  clip: string;
  category: Category;
  system: "service" | "faster-whisper" | "whisperlive";
  finals: Final[];
  metrics: ClipMetrics;
  /** Service only. */
  vadDrops?: { start: number; end: number }[];
  vadSegments?: number;
  partials?: number;
  emptyFinals?: number;
  /** WhisperLive only: segments never completed. */
  uncompleted?: number;
}

const rows: Row[] = [];
const started = new Date().toISOString();
const load0 = loadavg()[0]!;

for (const entry of MODELS) {
  const spec = RUNS[entry];
  if (!spec) throw new Error(`unknown model ${entry} (${Object.keys(RUNS).join(", ")})`);
  const serving = caps.find((c) => c.model === spec.publicModel)?.engine;
  if (serving !== entry || !installed(entry)) {
    console.log(`${entry}: skipped (${spec.publicModel} is served by ${serving ?? "nothing"}; installed: ${installed(entry)})`);
    continue;
  }
  const options = catalogueEntry(entry)?.options as { decoding?: { beamSize?: number } } | undefined;
  const beamSize = options?.decoding?.beamSize ?? DEFAULT_DECODING.beamSize;
  const language = spec.languages?.[0];
  console.log(`\n${entry} (${spec.publicModel}, beam ${beamSize}, languages ${spec.languages?.join(",") ?? "detected"})`);
  const ct2 = SYSTEMS.some((s) => s !== "service") ? await ct2Dir(entry) : null;
  if (SYSTEMS.includes("service")) {
    await streamService({ id: "warm-up", category: "real", description: "", turns: [], durationS: 0, wav: path.join(sharedAudio, "leopard_test.wav"), peerWav: "", peer16k: "" }, spec.publicModel, spec.languages, false);
    for (const c of clips) {
      const r = await streamService(c, spec.publicModel, spec.languages);
      const metrics = clipMetrics(c.turns, r.finals, ENDPOINTING);
      const vadDrops = droppedVadSegments(r.vadSegments, r.finals);
      rows.push({ model: entry, clip: c.id, category: c.category, system: "service", finals: r.finals, metrics, vadDrops, vadSegments: r.vadSegments.length, partials: r.partials, emptyFinals: r.emptyFinals });
      console.log(
        `  ${c.id} (${c.durationS.toFixed(1)} s): WER ${pct(metrics.edits / metrics.words)}, dropped turns ${metrics.droppedTurns.length}/${metrics.turns}, VAD drops ${vadDrops.length}/${r.vadSegments.length}, loops ${metrics.loops.length}, dups ${metrics.duplicates.length}, not English ${r.finals.filter(notEnglish).length}/${r.finals.length}, lag p50 ${ms(quantile(metrics.lags, 0.5))} ms; load ${loadavg()[0]!.toFixed(1)}`,
      );
    }
  }
  const runPeers = !args["service-only"];
  const peerSets: [Row["system"], Map<string, PeerRun>][] = [];
  if (SYSTEMS.includes("faster-whisper") || args["service-only"]) peerSets.push(["faster-whisper", await fasterWhisperRuns(entry, ct2, beamSize, language, runPeers && SYSTEMS.includes("faster-whisper"))]);
  if (SYSTEMS.includes("whisperlive") || args["service-only"]) peerSets.push(["whisperlive", await whisperLiveRuns(entry, ct2, language, runPeers && SYSTEMS.includes("whisperlive"))]);
  for (const [system, runs] of peerSets) {
    for (const c of clips) {
      const r = runs.get(c.id);
      if (r) rows.push({ model: entry, clip: c.id, category: c.category, system, finals: r.finals, metrics: clipMetrics(c.turns, r.finals, ENDPOINTING), ...(r.uncompleted !== undefined ? { uncompleted: r.uncompleted } : {}) });
    }
  }
}

// ── report ─────────────────────────────────────────────────────────────────

/** Every clip is English: a final the service gave another language is a misdetected one. */
function notEnglish(f: Final): boolean {
  return f.language !== undefined && f.language !== "en";
}

function pct(x: number): string {
  return Number.isFinite(x) ? `${(x * 100).toFixed(1)} %` : "-";
}
function ms(x: number): string {
  return Number.isFinite(x) ? `${Math.round(x * 1000)}` : "-";
}

interface Summary {
  model: string;
  category: string;
  clips: number;
  audioS: number;
  words: number;
  turns: number;
  systems: Record<string, { clips: number; wer: number; droppedTurns: number; loops: number; insertionBursts: number; duplicates: number; lagP50: number; lagP95: number; timedLagP50: number; timedLagP95: number; vadDrops?: number; vadSegments?: number; uncompleted?: number }>;
  /** Pooled WER ratio service / faster-whisper over the clips both have. */
  ratio: number;
}

function summarise(model: string, category: string, rs: Row[]): Summary {
  const ids = [...new Set(rs.map((r) => r.clip))];
  const clipInfo = ids.map((id) => clips.find((c) => c.id === id)!);
  const systems: Summary["systems"] = {};
  for (const system of ["service", "faster-whisper", "whisperlive"] as const) {
    const mine = rs.filter((r) => r.system === system);
    if (mine.length === 0) continue;
    const words = mine.reduce((n, r) => n + r.metrics.words, 0);
    const lags = mine.flatMap((r) => r.metrics.lags);
    systems[system] = {
      clips: mine.length,
      wer: mine.reduce((n, r) => n + r.metrics.edits, 0) / words,
      droppedTurns: mine.reduce((n, r) => n + r.metrics.droppedTurns.length, 0),
      loops: mine.reduce((n, r) => n + r.metrics.loops.length, 0),
      insertionBursts: mine.reduce((n, r) => n + r.metrics.insertionBursts.length, 0),
      duplicates: mine.reduce((n, r) => n + r.metrics.duplicates.length, 0),
      lagP50: quantile(lags, 0.5),
      lagP95: quantile(lags, 0.95),
      timedLagP50: quantile(mine.flatMap((r) => r.metrics.timedLags ?? []), 0.5),
      timedLagP95: quantile(mine.flatMap((r) => r.metrics.timedLags ?? []), 0.95),
      ...(system === "whisperlive" ? { uncompleted: mine.reduce((n, r) => n + (r.uncompleted ?? 0), 0) } : {}),
      ...(system === "service" ? { vadDrops: mine.reduce((n, r) => n + r.vadDrops!.length, 0), vadSegments: mine.reduce((n, r) => n + r.vadSegments!, 0) } : {}),
    };
  }
  const both = ids.filter((id) => rs.some((r) => r.clip === id && r.system === "service") && rs.some((r) => r.clip === id && r.system === "faster-whisper"));
  const edits = (system: string) => rs.filter((r) => r.system === system && both.includes(r.clip)).reduce((n, r) => n + r.metrics.edits, 0);
  return {
    model,
    category,
    clips: ids.length,
    audioS: clipInfo.reduce((n, c) => n + c.durationS, 0),
    words: rs.filter((r) => r.system === rs[0]!.system).reduce((n, r) => n + r.metrics.words, 0),
    turns: clipInfo.reduce((n, c) => n + c.turns.length, 0),
    systems,
    // NaN when faster-whisper made no error (the ratio is undefined; compare the WERs).
    ratio: both.length > 0 && edits("faster-whisper") > 0 ? edits("service") / edits("faster-whisper") : NaN,
  };
}

const summaries: Summary[] = [];
for (const model of [...new Set(rows.map((r) => r.model))]) {
  for (const cat of categories) {
    const rs = rows.filter((r) => r.model === model && r.category === cat);
    if (rs.length > 0) summaries.push(summarise(model, cat, rs));
  }
  summaries.push(summarise(model, "all", rows.filter((r) => r.model === model)));
}

const sys = (s: Summary, name: string) => s.systems[name];
const ratio = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "-");
console.log(
  `\nFidelity: 1× real time, 100-ms chunks, default options (partials on, endpointing ${ENDPOINTING} s${args.profile ? `, profile ${args.profile}` : ""}${args.init ? `, ${args.init}` : ""}); faster-whisper offline on the same CTranslate2 weights; WhisperLive 0.10.0 live on them. ${THREADS} inference thread(s) each, the service in ${args["engine-threads"]} engine thread(s); load avg at start ${load0.toFixed(1)}\n`,
);
console.log("| model | category | clips | audio s | words | turns | WER service | WER faster-whisper | WER WhisperLive | service / fw | dropped turns svc/fw/WL | VAD drops svc | loops svc/fw/WL | insertion bursts svc/fw/WL | dup. finals svc/WL | lag p50 / p95 ms svc | lag by time p50 / p95 ms svc | lag p50 / p95 ms WL |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const s of summaries) {
  const [v, f, w] = [sys(s, "service"), sys(s, "faster-whisper"), sys(s, "whisperlive")];
  const tri = (k: "droppedTurns" | "loops" | "insertionBursts") => [v, f, w].map((x) => (x ? x[k] : "-")).join(" / ");
  console.log(
    `| ${s.model} | ${s.category} | ${s.clips} | ${s.audioS.toFixed(0)} | ${s.words} | ${s.turns} | ${pct(v?.wer ?? NaN)} | ${pct(f?.wer ?? NaN)} | ${pct(w?.wer ?? NaN)} | ${ratio(s.ratio)} | ${tri("droppedTurns")} | ${v ? `${v.vadDrops}/${v.vadSegments}` : "-"} | ${tri("loops")} | ${tri("insertionBursts")} | ${v?.duplicates ?? "-"} / ${w?.duplicates ?? "-"} | ${ms(v?.lagP50 ?? NaN)} / ${ms(v?.lagP95 ?? NaN)} | ${ms(v?.timedLagP50 ?? NaN)} / ${ms(v?.timedLagP95 ?? NaN)} | ${ms(w?.lagP50 ?? NaN)} / ${ms(w?.lagP95 ?? NaN)} |`,
  );
}

for (const s of summaries.filter((s) => s.category === "all" && s.systems.whisperlive)) {
  console.log(`\n${s.model}: WhisperLive left ${s.systems.whisperlive!.uncompleted} segment(s) uncompleted at the end of a clip (counted with their last text, no lag)`);
}

// Failures: service clips with a drop, loop, burst or duplicate, or more word errors than faster-whisper.
const failures: { model: string; clip: string; why: string[]; reference: string[]; service: string[]; fasterWhisper?: string; excess: number }[] = [];
for (const r of rows.filter((r) => r.system === "service")) {
  const c = clips.find((x) => x.id === r.clip)!;
  const fw = rows.find((x) => x.system === "faster-whisper" && x.model === r.model && x.clip === r.clip);
  const excess = r.metrics.edits - (fw?.metrics.edits ?? 0);
  const why = [
    ...r.metrics.droppedTurns.map((k) => `dropped turn «${c.turns[k]!.text}» (${c.turns[k]!.start.toFixed(2)}–${c.turns[k]!.end.toFixed(2)} s)`),
    ...r.vadDrops!.map((d) => `VAD segment ${d.start.toFixed(2)}–${d.end.toFixed(2)} s without a final`),
    ...r.metrics.loops.map((l) => `loop «${l.ngram}» ×${l.times} in final ${l.final}`),
    ...r.metrics.insertionBursts.map((b) => `insertion burst «${b.words}» in final ${b.final}`),
    ...r.metrics.duplicates.map((d) => `duplicate «${d.words}» at the start of final ${d.final}`),
    ...r.metrics.lagByTurn.flatMap((l, k) => (l !== null && l > LATE_S ? [`final of «${c.turns[k]!.text}» ${l.toFixed(2)} s late (beyond the endpointing window)`] : [])),
    ...(fw && excess > 0 ? [`${excess} word error(s) more than faster-whisper (${r.metrics.edits} vs ${fw.metrics.edits} of ${r.metrics.words})`] : []),
  ];
  if (why.length === 0) continue;
  failures.push({
    model: r.model,
    clip: r.clip,
    why,
    reference: c.turns.map((t) => `${t.start.toFixed(2)}–${t.end.toFixed(2)} ${t.text}`),
    service: r.finals.map((f) => `${f.start.toFixed(2)}–${f.end.toFixed(2)} @${f.at!.toFixed(2)} ${f.text}`),
    fasterWhisper: fw?.finals.map((f) => f.text).join(" "),
    excess,
  });
}
failures.sort((a, b) => b.why.length + b.excess - (a.why.length + a.excess));
console.log(`\nService failures (${failures.length} clip runs; worst first, all in the JSON):`);
for (const f of failures.slice(0, 12)) {
  console.log(`\n${f.model} ${f.clip}: ${f.why.join("; ")}`);
  console.log(`  reference: ${f.reference.join(" | ")}`);
  console.log(`  service:   ${f.service.join(" | ")}`);
  if (f.fasterWhisper !== undefined) console.log(`  f-whisper: ${f.fasterWhisper}`);
}

console.log(["", ...confidenceLines(rows, (id) => clips.find((c) => c.id === id)!.turns)].join("\n"));
// Every clip is English: a final in another language is a misdetected one (whisper-base detects).
for (const model of new Set(rows.filter((r) => r.system === "service").map((r) => r.model))) {
  const finals = rows.filter((r) => r.system === "service" && r.model === model).flatMap((r) => r.finals);
  const other = finals.filter(notEnglish);
  console.log(`${model}: finals not in English ${other.length} of ${finals.length}${other.length ? ` (${[...new Set(other.map((f) => f.language))].join(", ")})` : ""}`);
}

mkdirSync(RESULTS, { recursive: true });
writeFileSync(
  path.join(RESULTS, "fidelity.json"),
  JSON.stringify({ started, clipSet: set.key, endpointing: ENDPOINTING, threads: THREADS, loadAtStart: load0, args, clips: clips.map(({ wav, peerWav, peer16k, g711, ...c }) => c), summaries, failures, rows }, null, 2),
);
console.log(`\nwritten: bench/results/fidelity.json`);
await svc.stop();
process.exit(0);
