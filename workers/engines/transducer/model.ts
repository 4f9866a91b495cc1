/**
 * Loads a sherpa-onnx style streaming transducer (encoder/decoder/joiner ONNX + tokens.txt):
 * chunk sizes from the encoder's metadata_props, cached-state inputs discovered from the encoder
 * signature (every input but `x`; each fed back from `new_<name>` or the output in the same place).
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { readOnnxMetadata } from "./onnx-metadata.ts";
import { TokenTable } from "./tokens.ts";

export interface TransducerModelOptions {
  threads?: number;
  preferQuantized?: boolean;
}

function pick(dir: string, prefix: string, preferQuantized: boolean): string {
  const files = readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith(".onnx")).sort();
  if (files.length === 0) throw new Error(`${dir}: no ${prefix}*.onnx`);
  const quant = files.filter((f) => f.includes("int8"));
  const plain = files.filter((f) => !f.includes("int8"));
  const ordered = preferQuantized ? [...quant, ...plain] : [...plain, ...quant];
  return join(dir, ordered[0]);
}

function intMeta(meta: Record<string, string>, key: string, file: string, fallback?: number): number {
  const raw = meta[key];
  if (raw === undefined) {
    if (fallback !== undefined) return fallback;
    throw new Error(`${file}: metadata "${key}" missing`);
  }
  const v = Number(raw.split(",")[0]);
  if (!Number.isInteger(v) || v <= 0) throw new Error(`${file}: metadata "${key}" is not a positive integer`);
  return v;
}

export class TransducerModel {
  /** Feature frames per encoder call (chunk + right context). */
  readonly chunkFrames: number;
  /** Feature frames the stream advances per encoder call. */
  readonly chunkShift: number;
  readonly contextSize: number;
  readonly featureDim: number;
  private readonly stateNames: string[];
  private readonly stateOutputs: string[];

  private constructor(
    readonly encoder: ort.InferenceSession,
    readonly decoder: ort.InferenceSession,
    readonly joiner: ort.InferenceSession,
    readonly tokens: TokenTable,
    encoderMeta: Record<string, string>,
    decoderMeta: Record<string, string>,
    encoderPath: string,
  ) {
    this.chunkShift = intMeta(encoderMeta, "decode_chunk_len", encoderPath);
    this.chunkFrames = intMeta(encoderMeta, "T", encoderPath);
    this.contextSize = intMeta(decoderMeta, "context_size", "decoder", 2);
    const x = encoder.inputMetadata.find((m) => m.name === "x");
    if (!x || !x.isTensor) throw new Error(`${encoderPath}: no input "x"`);
    const fd = x.shape[2];
    this.featureDim = typeof fd === "number" ? fd : 80;
    this.stateNames = encoder.inputNames.filter((n) => n !== "x");
    const outs = encoder.outputNames;
    if (!outs.includes("encoder_out")) throw new Error(`${encoderPath}: no output "encoder_out"`);
    const rest = outs.filter((n) => n !== "encoder_out");
    this.stateOutputs = this.stateNames.map((n, i) => (outs.includes(`new_${n}`) ? `new_${n}` : rest[i]));
    if (this.stateOutputs.some((o) => o === undefined)) throw new Error(`${encoderPath}: state outputs do not match state inputs`);
  }

  /** Loads `encoder-*.onnx`, `decoder-*.onnx`, `joiner-*.onnx` and `tokens.txt` from `dir`. */
  static async load(dir: string, opts: TransducerModelOptions = {}): Promise<TransducerModel> {
    const q = opts.preferQuantized ?? false;
    const encPath = pick(dir, "encoder", q);
    const decPath = pick(dir, "decoder", q);
    const joinPath = pick(dir, "joiner", q);
    const so: ort.InferenceSession.SessionOptions = { intraOpNumThreads: opts.threads ?? 1, interOpNumThreads: 1 };
    const encBytes = readFileSync(encPath);
    const decBytes = readFileSync(decPath);
    const [encoder, decoder, joiner] = await Promise.all([
      ort.InferenceSession.create(encBytes, so),
      ort.InferenceSession.create(decBytes, so),
      ort.InferenceSession.create(joinPath, so),
    ]);
    const tokens = TokenTable.load(join(dir, "tokens.txt"));
    return new TransducerModel(encoder, decoder, joiner, tokens, readOnnxMetadata(encBytes), readOnnxMetadata(decBytes), encPath);
  }

  /** Zero states for a new stream (symbolic dimensions such as the batch become 1). */
  initialStates(): ort.Tensor[] {
    return this.stateNames.map((name) => {
      const meta = this.encoder.inputMetadata.find((m) => m.name === name)!;
      if (!meta.isTensor) throw new Error(`state ${name} is not a tensor`);
      const dims = meta.shape.map((d) => (typeof d === "number" ? d : 1));
      const n = dims.reduce((a, b) => a * b, 1);
      if (meta.type === "int64") return new ort.Tensor("int64", new BigInt64Array(n), dims);
      if (meta.type === "float32") return new ort.Tensor("float32", new Float32Array(n), dims);
      throw new Error(`state ${name} has unsupported type ${meta.type}`);
    });
  }

  /** Runs one chunk: features [chunkFrames, featureDim] → encoder frames [T_out, dim] and new states. */
  async encode(features: Float32Array, states: ort.Tensor[]): Promise<{ frames: Float32Array; count: number; dim: number; states: ort.Tensor[] }> {
    const feeds: Record<string, ort.Tensor> = { x: new ort.Tensor("float32", features, [1, this.chunkFrames, this.featureDim]) };
    this.stateNames.forEach((n, i) => (feeds[n] = states[i]));
    const out = await this.encoder.run(feeds);
    const enc = out.encoder_out;
    return {
      frames: enc.data as Float32Array,
      count: enc.dims[1],
      dim: enc.dims[2],
      states: this.stateOutputs.map((n) => out[n]),
    };
  }

  /** Decoder outputs for a batch of contexts (each `contextSize` token ids) → [N, dim]. */
  async decode(contexts: number[][]): Promise<{ data: Float32Array; dim: number }> {
    const ids = contexts.flat();
    const flat = new BigInt64Array(ids.length); // a loop, not BigInt64Array.from (workers/engines/whisper/decoder.ts)
    for (let i = 0; i < ids.length; i++) flat[i] = BigInt(ids[i]!);
    const out = await this.decoder.run({ y: new ort.Tensor("int64", flat, [contexts.length, this.contextSize]) });
    const d = out.decoder_out;
    return { data: d.data as Float32Array, dim: d.dims[d.dims.length - 1] };
  }

  /** Joiner logits for N (encoder frame, decoder output) pairs → [N, vocab]. */
  async join(enc: Float32Array, dec: Float32Array, n: number, encDim: number, decDim: number): Promise<Float32Array> {
    const out = await this.joiner.run({
      encoder_out: new ort.Tensor("float32", enc, [n, encDim]),
      decoder_out: new ort.Tensor("float32", dec, [n, decDim]),
    });
    return out.logit.data as Float32Array;
  }

  async release(): Promise<void> {
    await Promise.all([this.encoder.release(), this.decoder.release(), this.joiner.release()]);
  }
}
