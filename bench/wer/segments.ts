/**
 * Where a streamed final differs from the offline decode: the VAD's utterances of one clip (the
 * session's front end: 100 ms chunks, resampler, Silero, endpointer) decoded through the engine
 * directly, no socket, as the session decodes them (in order, each prompted with the text before
 * it), for each endpointer variant given; and the whole clip in one decode.
 *
 *   bun bench/wer/segments.ts --model whisper-base --clip leopard_test_de.wav \
 *     [--variant preRollMs=400] [--variant speechPadMs=200,endpointing=1] [--no-prompt] [--languages de]
 *     [--fp32] [--faster-whisper] [--prompt-chars 200] [--resampler medium|best|fastest]
 *
 * `--resampler`: the libsamplerate quality of the front end (the session's: medium) for clips not at 16 kHz.
 * `--prompt-chars`: the prompt cut to its last N characters (the session keeps 600).
 * `--fp32`: both fp32 ONNX files (the entry's choice otherwise); `--faster-whisper`: faster-whisper
 * on the same audio too (the whole clip, and each utterance with the prompt the engine had).
 *
 * A variant is comma-separated `EndpointerOptions` members; the first row is always the defaults.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createAudioFrontend, FRONTEND_SAMPLE_RATE } from "../../server/audio/frontend.ts";
import { createResampler, type ResamplerQuality } from "../../server/audio/resampler.ts";
import type { EndpointerOptions } from "../../server/vad/endpointer-types.ts";
import { sharedAudio } from "../../test/helpers/server.ts";
import { modelsDir, vadModelsDir } from "../../test/asr/models.ts";
import { referenceTexts } from "../../test/asr/stream.ts";
import { normalizeWords, wordEdits } from "../../test/asr/wer.ts";
import { catalogueEntry } from "../../workers/catalogue/entries.ts";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { loadEngine } from "../../workers/engines/registry.ts";
import { SileroVad } from "../../workers/engines/vad/silero.ts";
import { ct2Dir, fasterWhisper } from "./ct2.ts";

const { values: args } = parseArgs({
  options: {
    model: { type: "string", default: "whisper-base" },
    clip: { type: "string", default: "leopard_test_de.wav" },
    variant: { type: "string", multiple: true, default: [] },
    "no-prompt": { type: "boolean", default: false },
    "prompt-chars": { type: "string" },
    languages: { type: "string" },
    beam: { type: "string", default: "5" },
    fp32: { type: "boolean", default: false },
    "faster-whisper": { type: "boolean", default: false },
    resampler: { type: "string", default: "medium" },
  },
});

const entry = catalogueEntry(args.model!);
if (!entry) throw new Error(`unknown catalogue entry ${args.model}`);
const engine = await loadEngine(entry.family as never, path.join(modelsDir, entry.dir), {
  name: entry.id,
  threads: 1,
  options: { ...entry.options, ...(args.fp32 ? { preferQuantized: false } : {}) },
});
const vad = await SileroVad.load(path.join(vadModelsDir, "silero-vad", "silero_vad.onnx"));
const reference = normalizeWords((await referenceTexts(sharedAudio)).get(args.clip!) ?? "");
const languages = args.languages ? args.languages.split(",") : undefined;
const wavPath = path.join(sharedAudio, args.clip!);
const wav = readWavFile(wavPath);
const quality = args.resampler as ResamplerQuality;

/** The finals' audio as the session's front end cuts it with `endpointer` (the session's settings otherwise). */
async function utterances(endpointer: EndpointerOptions) {
  const bytes = new Uint8Array(await Bun.file(wavPath).arrayBuffer()).subarray(44);
  const frontend = await createAudioFrontend({
    format: { encoding: "wav/pcm", bitDepth: 16, sampleRate: wav.sampleRate, channels: 1 },
    vad,
    resamplerQuality: quality,
    endpointer: { partialIntervalMs: 0, partialOnPause: true, ...endpointer },
  });
  const chunk = Math.round(wav.sampleRate / 10) * 2;
  const events = [];
  for (let o = 0; o < bytes.length; o += chunk) events.push(...(await frontend.push(bytes.subarray(o, Math.min(bytes.length, o + chunk)))));
  events.push(...(await frontend.flush()));
  frontend.close();
  return events.flatMap((e) => (e.type === "utterance_final" ? [e] : []));
}

function parseVariant(s: string): EndpointerOptions {
  const o: Record<string, number> = {};
  for (const kv of s.split(",").filter(Boolean)) {
    const [k, v] = kv.split("=");
    o[k!] = Number(v);
  }
  return o as EndpointerOptions;
}

const wer = (text: string) => `${wordEdits(reference, normalizeWords(text))}/${reference.length}`;
const beamSize = Number(args.beam);

const resampler = await createResampler(wav.sampleRate, FRONTEND_SAMPLE_RATE, quality);
const clip16k = Float32Array.from([...resampler.push(wav.samples), ...resampler.flush()]);
resampler.close();
const whole = await engine.transcribe({ audio: clip16k, partial: false, languages, beamSize });
console.log(`whole clip: ${wer(whole.text)} «${whole.text.trim()}»`);
const tmp = mkdtempSync(path.join(tmpdir(), "wer-segments-"));
const ct2 = args["faster-whisper"] ? await ct2Dir(entry.id) : null;
/** faster-whisper on float clips with their prompts, in one process. */
async function offline(clips: { audio: Float32Array; prompt: string }[]): Promise<string[]> {
  if (!ct2) return [];
  const files = clips.map((c, i) => {
    const f = path.join(tmp, `${i}.f32`);
    writeFileSync(f, new Uint8Array(c.audio.buffer, c.audio.byteOffset, c.audio.byteLength));
    return f;
  });
  const prompts = Object.fromEntries(files.flatMap((f, i) => (clips[i]!.prompt ? [[f, clips[i]!.prompt]] : [])));
  const r = await fasterWhisper({ model: ct2, beamSize, threads: 1, language: languages?.[0], clips: files, prompts });
  return files.map((f) => r.clips[f]!.text.trim());
}
if (ct2) {
  const [fw] = await offline([{ audio: clip16k, prompt: "" }]);
  console.log(`whole clip, faster-whisper: ${wer(fw!)} «${fw}»`);
}

for (const v of ["", ...args.variant!]) {
  const finals = await utterances(parseVariant(v));
  const texts: string[] = [];
  const parts: string[] = [];
  const asked: { audio: Float32Array; prompt: string }[] = [];
  for (const f of finals) {
    const joined = args["no-prompt"] ? "" : texts.join(" ");
    const max = args["prompt-chars"] ? Number(args["prompt-chars"]) : Infinity;
    const previousText = joined.length > max ? joined.slice(joined.length - max).replace(/^\S*\s/, "") : joined;
    asked.push({ audio: f.audio, prompt: previousText });
    const r = await engine.transcribe({ audio: f.audio, partial: false, languages, beamSize, ...(previousText ? { previousText } : {}) });
    if (r.text.trim() !== "") texts.push(r.text.trim());
    parts.push(`[${f.start.toFixed(2)}–${f.end.toFixed(2)} ${r.language}] ${r.text.trim()}`);
  }
  console.log(`${v || "defaults"}: ${wer(texts.join(" "))}\n  ${parts.join("\n  ")}`);
  const fw = await offline(asked);
  if (ct2) console.log(`  faster-whisper on the same utterances: ${wer(fw.join(" "))}\n    ${fw.join("\n    ")}`);
}
rmSync(tmp, { recursive: true, force: true });
process.exit(0);
