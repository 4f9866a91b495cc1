/**
 * Isolated-token engine: a Moonshine-micro CNN classifier that maps one short utterance (a VAD
 * segment) to one token — a letter, a digit spoken as a word, or a command word.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { moonshineLogMel, MOONSHINE_CLIP_SAMPLES, MOONSHINE_FRAMES, MOONSHINE_N_MELS } from "../../dsp/moonshine-mel.ts";
import type { Engine, EngineInfo, TranscribeRequest, TranscribeResult } from "../types.ts";
import { speechBounds } from "./energy.ts";

const ISOLATED_MODEL_FILE = "spelling_cnn_mel.onnx";
const ISOLATED_QUANTIZED_FILE = "spelling_cnn_mel.shrunk.onnx";
const ISOLATED_META_FILE = "spelling_cnn_meta.json";
const SAMPLE_RATE = 16000;
/** Leading silence kept before the speech onset when a segment starts with a long pause. */
const LEAD_IN_SAMPLES = 0.15 * SAMPLE_RATE;

export interface IsolatedTokenMeta {
  classes: string[];
  inputName: string;
  outputName: string;
}

export interface IsolatedTokenOptions {
  /** Catalogue entry id reported in `info.name` (default `moonshine-micro-spelling`). */
  name?: string;
  /** Use the int8 model even when the fp32 one is present. */
  preferQuantized?: boolean;
  /** onnxruntime intra-op threads (default 1). */
  threads?: number;
}

/** Reads and checks `spelling_cnn_meta.json`. */
export function readIsolatedTokenMeta(dir: string): IsolatedTokenMeta {
  const path = join(dir, ISOLATED_META_FILE);
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  }
  const classes = raw.classes;
  if (!Array.isArray(classes) || classes.length === 0 || !classes.every((c) => typeof c === "string")) {
    throw new Error(`${path}: "classes" must be a non-empty list of strings`);
  }
  if (raw.sample_rate !== undefined && raw.sample_rate !== SAMPLE_RATE) throw new Error(`${path}: sample_rate must be 16000`);
  if (raw.n_mels !== undefined && raw.n_mels !== MOONSHINE_N_MELS) throw new Error(`${path}: n_mels must be 64`);
  if (raw.target_frames !== undefined && raw.target_frames !== MOONSHINE_FRAMES) throw new Error(`${path}: target_frames must be 128`);
  return {
    classes: classes as string[],
    inputName: typeof raw.input_name === "string" ? raw.input_name : "log_mel",
    outputName: typeof raw.output_name === "string" ? raw.output_name : "logits",
  };
}

/** Numerically stable softmax. */
export function softmax(logits: ArrayLike<number>): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i]);
  const out = new Float64Array(logits.length);
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += out[i] = Math.exp(logits[i] - max);
  for (let i = 0; i < out.length; i++) out[i] /= sum;
  return out;
}

export class IsolatedTokenEngine implements Engine {
  readonly info: EngineInfo;

  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly meta: IsolatedTokenMeta,
    name: string,
    /** The model file in use. */
    readonly modelPath: string,
  ) {
    this.info = {
      family: "isolated-token",
      name,
      languages: ["en"],
      features: [],
      translationTargets: [],
      sampleRate: SAMPLE_RATE,
      streaming: false,
    };
  }

  /** Loads the classifier from a directory holding the ONNX model(s) and the meta JSON. */
  static async load(dir: string, opts: IsolatedTokenOptions = {}): Promise<IsolatedTokenEngine> {
    const meta = readIsolatedTokenMeta(dir);
    const fp32 = join(dir, ISOLATED_MODEL_FILE);
    const int8 = join(dir, ISOLATED_QUANTIZED_FILE);
    const order = opts.preferQuantized ? [int8, fp32] : [fp32, int8];
    const modelPath = order.find((p) => existsSync(p));
    if (!modelPath) throw new Error(`no ${ISOLATED_MODEL_FILE} or ${ISOLATED_QUANTIZED_FILE} in ${dir}`);
    const session = await ort.InferenceSession.create(modelPath, {
      intraOpNumThreads: opts.threads ?? 1,
      interOpNumThreads: 1,
      executionMode: "sequential",
      graphOptimizationLevel: "all",
    });
    if (!session.inputNames.includes(meta.inputName) || !session.outputNames.includes(meta.outputName)) {
      await session.release();
      throw new Error(`${modelPath}: expected input "${meta.inputName}" and output "${meta.outputName}"`);
    }
    return new IsolatedTokenEngine(session, meta, opts.name ?? "moonshine-micro-spelling", modelPath);
  }

  /** Class probabilities for one clip (16 kHz mono), in `classes` order. */
  async classify(audio: Float32Array): Promise<Float64Array> {
    const features = moonshineLogMel(audio);
    const input = new ort.Tensor("float32", features, [1, 1, MOONSHINE_N_MELS, MOONSHINE_FRAMES]);
    const outputs = await this.session.run({ [this.meta.inputName]: input });
    const logits = outputs[this.meta.outputName].data as Float32Array;
    if (logits.length !== this.meta.classes.length) {
      throw new Error(`model gave ${logits.length} logits for ${this.meta.classes.length} classes`);
    }
    return softmax(logits);
  }

  /** Class labels, in model output order. */
  get classes(): readonly string[] {
    return this.meta.classes;
  }

  async transcribe(req: TranscribeRequest): Promise<TranscribeResult> {
    if (!(req.audio instanceof Float32Array)) throw new TypeError("audio must be a Float32Array");
    const bounds = speechBounds(req.audio, { sampleRate: SAMPLE_RATE });
    if (bounds.endSample === 0) {
      return { text: "", language: "en", confidence: 0, words: [], noSpeech: true };
    }
    // Training clips hold their token in the first second with a short lead-in: drop a long pause.
    const from = Math.max(0, bounds.startSample - LEAD_IN_SAMPLES);
    const clip = req.audio.subarray(from, from + MOONSHINE_CLIP_SAMPLES);
    const probs = await this.classify(clip);
    let best = 0;
    for (let i = 1; i < probs.length; i++) if (probs[i] > probs[best]) best = i;
    const word = this.meta.classes[best];
    const confidence = probs[best];
    return {
      text: word,
      language: "en",
      confidence,
      words: [{ word, start: bounds.startSample / SAMPLE_RATE, end: bounds.endSample / SAMPLE_RATE, confidence }],
      noSpeech: false,
    };
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}
