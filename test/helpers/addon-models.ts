/**
 * The real add-on models for tests (Smart Turn, the speaker encoder), and synthesized speech.
 *
 * The models are looked up in the shared models, then in `MODELS_DIR` (default `<repo>/models`,
 * which the bootstrap fills); when absent they are installed there with the project's own
 * `models pull` (pinned packages from the package index).
 */
import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { catalogueEntry, isInstalled, SMART_TURN_FILE, SMART_TURN_ID, SPEAKER_FILE, SPEAKER_ID } from "../../workers/catalogue/index.ts";
import { pullEntry } from "../../workers/models/pull.ts";
import { sharedModels } from "./server.ts";

/** The installed models: `$MODELS_DIR`, else `<repo>/models` (what the bootstrap fills). */
export const installedModels = path.resolve(process.env.MODELS_DIR ?? path.resolve(import.meta.dir, "../../models"));

/** A models directory holding a catalogue entry: the shared models, else the installed ones (pulled there when missing). */
export async function pulledModelsDir(id: string): Promise<string> {
  const entry = catalogueEntry(id)!;
  for (const dir of [sharedModels, installedModels]) if (isInstalled(entry, dir)) return dir;
  mkdirSync(installedModels, { recursive: true });
  await pullEntry(entry, { modelsDir: installedModels });
  return installedModels;
}

export async function turnModelPath(): Promise<string> {
  return path.join(await pulledModelsDir(SMART_TURN_ID), SMART_TURN_FILE);
}

export async function speakerModelPath(): Promise<string> {
  return path.join(await pulledModelsDir(SPEAKER_ID), SPEAKER_FILE);
}

/**
 * A temporary models directory serving `trantoria-1` (whisper-tiny.en) with Silero VAD, plus the
 * named add-on models (symbolic links to the installed directories).
 */
export async function modelsWith(ids: string[] = [SMART_TURN_ID, SPEAKER_ID]): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), "models-addons-"));
  for (const id of ["whisper-tiny.en", "whisper-assets", "silero-vad", ...ids]) {
    const entry = catalogueEntry(id)!;
    symlinkSync(path.join(await pulledModelsDir(id), entry.dir), path.join(dir, entry.dir));
  }
  return dir;
}

/**
 * Speech synthesized by espeak-ng (American English at 150 words a minute unless told), as 16 kHz
 * mono float samples (sox resamples, without dither: sox dithers a 16-bit output at random by
 * default, and a test must hear the same samples every run).
 */
export function speak(text: string, { voice = "en-us", rate = 150 }: { voice?: string; rate?: number } = {}): Float32Array {
  const dir = mkdtempSync(path.join(tmpdir(), "speak-"));
  const raw = path.join(dir, "raw.wav");
  const out = path.join(dir, "out.wav");
  const say = Bun.spawnSync(["espeak-ng", "-v", voice, "-s", String(rate), "-w", raw, text]);
  if (say.exitCode !== 0) throw new Error(`espeak-ng failed: ${say.stderr.toString()}`);
  const conv = Bun.spawnSync(["sox", raw, "-D", "-r", "16000", "-c", "1", "-b", "16", out]);
  if (conv.exitCode !== 0) throw new Error(`sox failed: ${conv.stderr.toString()}`);
  return readWavFile(out).samples;
}

/** Concatenates pieces; numbers are seconds of digital silence. */
export function join16k(...parts: (Float32Array | number)[]): Float32Array {
  const arrays = parts.map((p) => (typeof p === "number" ? new Float32Array(Math.round(p * 16000)) : p));
  const out = new Float32Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}
