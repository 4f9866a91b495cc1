/**
 * Where tests find the real models that serve the public models: `MODELS_DIR` (what CI's
 * bootstrap fills) or `<repo>/models`, in the catalogue's layout (`bun run models -- pull <id>`).
 * `../shared/models` (Silero VAD, the Moonshine isolated-token recognizer, Whisper assets) serves
 * no public model; only the tests of those parts themselves read it directly.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isInstalled } from "../../workers/catalogue/capabilities.ts";
import { catalogueEntry } from "../../workers/catalogue/entries.ts";

export const repoDir = path.resolve(import.meta.dir, "../..");
export const sharedDir = path.resolve(repoDir, "../shared");
export const sharedModels = path.join(sharedDir, "models");
export const sharedAudio = path.join(sharedDir, "audio");

/** The installed models: `$MODELS_DIR`, else `<repo>/models`. */
export const modelsDir = path.resolve(process.env.MODELS_DIR ?? path.join(repoDir, "models"));

/** True when the catalogue entry (and what it requires) is installed in `modelsDir`. */
export function installed(id: string): boolean {
  const entry = catalogueEntry(id);
  return entry !== undefined && isInstalled(entry, modelsDir);
}

/** Throws a message saying how to install them when any of the catalogue entries `ids` is missing. */
export function requireModels(...ids: string[]): void {
  const missing = ids.filter((id) => !installed(id));
  if (missing.length === 0) return;
  throw new Error(
    `these tests need the real ${missing.join(", ")} weights in MODELS_DIR=${modelsDir}; ` +
      `install them with \`bash scripts/bootstrap.sh\` or \`bun run models -- pull ${missing.join(" ")}\``,
  );
}

/** Directory holding Silero VAD: `modelsDir` when it has one, else `../shared/models`. */
export const vadModelsDir = existsSync(path.join(modelsDir, "silero-vad", "silero_vad.onnx")) ? modelsDir : sharedModels;

let english: string | null = null;
let englishWithAddons: string | null = null;

/** The audio add-ons' models (end of turn, speaker embeddings). */
export const ADDON_MODELS = ["smart-turn-v3", "resemblyzer-speaker"];

/**
 * A models directory serving exactly `trantoria-1` (whisper-tiny.en, English) plus Silero VAD:
 * links to the installed directories, made once per process. Tests of the service's plumbing use
 * it so that what is served, and which engine loads, do not depend on what else is installed.
 */
export function englishModelsDir(): string {
  if (english) return english;
  requireModels("whisper-tiny.en");
  const dir = mkdtempSync(path.join(tmpdir(), "live-stt-models-"));
  for (const id of ["whisper-tiny.en", "whisper-assets"]) symlinkSync(path.join(modelsDir, id), path.join(dir, id));
  mkdirSync(path.join(dir, "silero-vad"));
  symlinkSync(path.join(vadModelsDir, "silero-vad", "silero_vad.onnx"), path.join(dir, "silero-vad", "silero_vad.onnx"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  english = dir;
  return dir;
}

/**
 * `englishModelsDir()` plus the audio add-ons' models: a deployment on which every advertised
 * add-on is served (the conformance suite's random init bodies ask for any of them).
 */
export function englishModelsDirWithAddons(): string {
  if (englishWithAddons) return englishWithAddons;
  requireModels("whisper-tiny.en", ...ADDON_MODELS);
  const base = englishModelsDir();
  const dir = mkdtempSync(path.join(tmpdir(), "live-stt-models-"));
  for (const id of ["whisper-tiny.en", "whisper-assets", "silero-vad"]) symlinkSync(path.join(base, id), path.join(dir, id));
  for (const id of ADDON_MODELS) symlinkSync(path.join(modelsDir, id), path.join(dir, id));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  englishWithAddons = dir;
  return dir;
}
