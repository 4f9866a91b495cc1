/**
 * Reads a Whisper export's `config.json` and `generation_config.json` (Hugging Face layout) and
 * locates its ONNX files (at the top of the directory or under `onnx/`).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { hasInt8DotProduct } from "../cpu.ts";

export interface WhisperModelConfig {
  nMels: 80 | 128;
  dModel: number;
  decoderLayers: number;
  decoderHeads: number;
  headDim: number;
  vocabSize: number;
  /** False for English-only models (gpt2 vocabulary). */
  multilingual: boolean;
  /** Number of language tokens in the vocabulary (99 or 100). */
  numLanguages: number;
  /** Language codes the model declares (from `lang_to_id`), or null to use all of the vocabulary's. */
  languages: string[] | null;
  maxTargetPositions: number;
  /** Largest index (0.02 s steps) allowed for the first timestamp. */
  maxInitialTimestampIndex: number;
  /** Token ids suppressed at every step (`suppress_tokens`). */
  suppressTokens: number[];
  /** Token ids suppressed at the first sampled step (`begin_suppress_tokens`). */
  beginSuppressTokens: number[] | null;
  encoderPath: string;
  decoderPath: string;
}

function readJson(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`${path}: invalid JSON (${(e as Error).message})`);
  }
}

function findFile(dir: string, names: string[]): string {
  for (const name of names) {
    for (const sub of ["", "onnx"]) {
      const p = join(dir, sub, name);
      if (existsSync(p)) return p;
    }
  }
  throw new Error(`${dir}: none of ${names.join(", ")} found (also looked in onnx/)`);
}

function num(obj: Record<string, unknown>, key: string, fallback?: number): number {
  const v = obj[key] ?? fallback;
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`config.json: "${key}" missing or not a number`);
  return v;
}

/**
 * Which ONNX files to prefer: `true` the int8 ones, `false` the fp32 ones, `"encoder"` the int8
 * encoder with the fp32 decoder (dynamic int8 speeds up the encoder's large matrix products, but
 * slows the decoder's one-token steps, or costs words where it is faster: bench/wer),
 * `"signed-encoder"` as `"encoder"` where the CPU has 8-bit dot-product instructions and fp32
 * elsewhere (for a model whose unsigned-int8 encoder loses words that its signed one keeps).
 *
 * Of the int8 files, `*_int8.onnx` (signed weights) comes first where the CPU has 8-bit
 * dot-product instructions; elsewhere `*_quantized.onnx` (unsigned weights), then fp32, and the
 * signed file only when neither is there: see `../cpu.ts`. With the int8 encoder (`"encoder"`,
 * `"signed-encoder"`) on such a CPU, the decoder is `decoder_model_merged_w8.onnx` where the
 * converter made one: its layers' weight matrices (not the vocabulary projection, nor the
 * projections of the encoder's output) in 8-bit blocks of 32 with their own scales (onnxruntime's
 * MatMulNBits), a quarter of the bytes a one-token step reads of them in fp32; else
 * `decoder_model_merged_cross_int8.onnx`: fp32, but for the cross-attention key and value
 * projections of the encoder's output (signed int8), most of a window's first decoder call; the
 * fp32 decoder elsewhere.
 */
export type QuantizedChoice = boolean | "encoder" | "signed-encoder";

/** Loads the model configuration; `nMels` overrides `num_mel_bins` when given. */
export function loadWhisperConfig(
  dir: string,
  overrides: { nMels?: number; quantized?: QuantizedChoice; int8DotProduct?: boolean } = {},
): WhisperModelConfig {
  const config = readJson(join(dir, "config.json"));
  const gen = readJson(join(dir, "generation_config.json"));
  const nMels = overrides.nMels ?? num(config, "num_mel_bins", 80);
  if (nMels !== 80 && nMels !== 128) throw new Error(`unsupported num_mel_bins ${nMels}`);
  const vocabSize = num(config, "vocab_size", 51865);
  const multilingual = vocabSize >= 51865;
  const dModel = num(config, "d_model");
  const decoderHeads = num(config, "decoder_attention_heads");
  const langToId = gen.lang_to_id as Record<string, number> | undefined;
  const languages = langToId ? Object.keys(langToId).map((t) => t.replace(/^<\|/, "").replace(/\|>$/, "")) : null;
  const dot = overrides.int8DotProduct ?? hasInt8DotProduct();
  // without 8-bit dot products a signed-int8 file is a last resort (its products can saturate)
  const int8 = dot ? ["_int8", "_quantized", ""] : ["_quantized", "", "_int8"];
  const fp32 = ["", "_quantized", "_int8"];
  const q = overrides.quantized;
  const encoderOrder = q === "signed-encoder" ? (dot ? ["_int8", "", "_quantized"] : fp32) : q ? int8 : fp32;
  // with the int8 encoder and 8-bit dot products: the decoder with 8-bit weight blocks, else the fp32
  // decoder whose cross-attention projections are int8
  const decoderOrder = q === true ? int8 : q && dot ? ["_w8", "_cross_int8", ...fp32] : fp32;
  return {
    nMels,
    dModel,
    decoderLayers: num(config, "decoder_layers"),
    decoderHeads,
    headDim: dModel / decoderHeads,
    vocabSize,
    multilingual,
    numLanguages: multilingual ? vocabSize - 51766 : 99,
    languages: multilingual ? languages : ["en"],
    maxTargetPositions: num(config, "max_target_positions", 448),
    maxInitialTimestampIndex: typeof gen.max_initial_timestamp_index === "number" ? gen.max_initial_timestamp_index : 50,
    suppressTokens: Array.isArray(gen.suppress_tokens) ? (gen.suppress_tokens as number[]) : [],
    beginSuppressTokens: Array.isArray(gen.begin_suppress_tokens) ? (gen.begin_suppress_tokens as number[]) : null,
    encoderPath: findFile(dir, encoderOrder.map((s) => `encoder_model${s}.onnx`)),
    decoderPath: findFile(dir, decoderOrder.map((s) => `decoder_model_merged${s}.onnx`)),
  };
}
