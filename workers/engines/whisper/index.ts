/**
 * Whisper family entry point for the engine registry: `loadEngine(dir, opts)`.
 * The tokenizer/mel assets are looked up in `opts.options.assetsDir`, the model directory itself,
 * `<dir>/../whisper-assets` (the catalogue's layout), then `$MODELS_DIR/whisper-assets`.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { EngineLoadOptions } from "../registry.ts";
import type { Engine } from "../types.ts";
import type { WhisperDecodingOptions } from "./decoding-options.ts";
import { WhisperEngine } from "./engine.ts";

export { WhisperEngine } from "./engine.ts";
export { DEFAULT_DECODING } from "./decoding-options.ts";
export type { WhisperEngineOptions, WhisperTranscribeRequest, WhisperTranscribeResult } from "./engine-types.ts";
export type { WhisperDecodingOptions } from "./decoding-options.ts";

function findAssets(dir: string, explicit: unknown): string {
  const candidates = [
    typeof explicit === "string" ? explicit : undefined,
    dir,
    join(dirname(dir), "whisper-assets"),
    process.env.MODELS_DIR ? join(process.env.MODELS_DIR, "whisper-assets") : undefined,
  ].filter((c): c is string => c !== undefined);
  for (const c of candidates) {
    if (existsSync(join(c, "multilingual.tiktoken")) || existsSync(join(c, "gpt2.tiktoken"))) return c;
  }
  throw new Error(`Whisper tokenizer (multilingual.tiktoken) not found; looked in ${candidates.join(", ")}`);
}

/** Loads a Whisper-family engine from a model directory. */
export async function loadEngine(dir: string, opts: EngineLoadOptions): Promise<Engine> {
  const o = opts.options ?? {};
  const nMels = o.nMels === 80 || o.nMels === 128 ? o.nMels : undefined;
  return WhisperEngine.load({
    modelDir: dir,
    assetsDir: findAssets(dir, o.assetsDir),
    name: opts.name,
    threads: opts.threads,
    nMels,
    // int8 encoder, fp32 decoder unless the entry says otherwise: on CPUs dynamic int8 halves the
    // encoder's time but slows the decoder's one-token steps (see bench/wer for the WER it keeps).
    preferQuantized: o.preferQuantized === true || o.preferQuantized === false || o.preferQuantized === "signed-encoder" ? o.preferQuantized : "encoder",
    task: o.task === "translate" || o.task === "transcribe" ? o.task : undefined,
    decoding: (o.decoding ?? undefined) as Partial<WhisperDecodingOptions> | undefined,
  });
}
