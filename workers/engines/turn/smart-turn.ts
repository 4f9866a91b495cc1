/**
 * Smart Turn v3 end-of-turn classifier on onnxruntime-node: probability (0..1) that the speaker has
 * finished, from the last 8 s of 16 kHz mono audio.
 *
 * Front end as in the upstream inference code: keep the last 8 s (128,000 samples), zero-pad at the
 * START when shorter, normalise the waveform to zero mean and unit variance, Whisper log-mel with
 * 80 bands (n_fft 400, hop 160, last frame dropped) → `input_features` [1, 80, 800]. The model ends
 * in a sigmoid; its first output is the probability.
 */
import * as ort from "onnxruntime-node";
import { whisperLogMel } from "../../dsp/whisper-mel.ts";

const TURN_SAMPLE_RATE = 16000;
/** Seconds of audio the model reads. */
const TURN_WINDOW_S = 8;
export const TURN_WINDOW_SAMPLES = TURN_SAMPLE_RATE * TURN_WINDOW_S;
const N_MELS = 80;
const N_FRAMES = TURN_WINDOW_SAMPLES / 160;

/** The last 8 s of `audio`, zero-padded at the start when shorter. */
function lastWindow(audio: Float32Array): Float32Array {
  if (audio.length >= TURN_WINDOW_SAMPLES) return audio.subarray(audio.length - TURN_WINDOW_SAMPLES);
  const out = new Float32Array(TURN_WINDOW_SAMPLES);
  out.set(audio, TURN_WINDOW_SAMPLES - audio.length);
  return out;
}

/** The model's input features [80 × 800], row-major, for 16 kHz audio ending at the evaluation. */
export function turnFeatures(audio: Float32Array): Float32Array {
  const { data, nFrames } = whisperLogMel(lastWindow(audio), N_MELS, { normalize: true });
  if (nFrames !== N_FRAMES) throw new Error(`expected ${N_FRAMES} frames, got ${nFrames}`);
  return data;
}

/** What a session needs of the end-of-turn model (`SmartTurn` in this thread, `TurnModelThread` in its own). */
export interface TurnModel {
  /** Probability that the turn is complete, for 16 kHz mono audio ending at the evaluation; calls answer in call order. */
  predict(audio: Float32Array): Promise<number>;
  release(): Promise<void>;
}

export class SmartTurn implements TurnModel {
  private tail: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly input: string,
    private readonly output: string,
  ) {}

  /** Loads a Smart Turn v3.x ONNX file (one intra-op thread, as upstream runs it on CPU). */
  static async load(modelPath: string, threads = 1): Promise<SmartTurn> {
    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(modelPath, {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionMode: "sequential",
        graphOptimizationLevel: "all",
        // The model is int8 (QDQ): onnxruntime multiplies unsigned activations by signed weights,
        // which without 8-bit dot-product instructions (AVX2 only) adds pairs of products into
        // 16-bit lanes that saturate. There jfk.wav's complete sentence scored 0.59 instead of
        // 0.85. This option has onnxruntime take unsigned weights there (exact, a few % slower);
        // with VNNI it changes nothing.
        extra: { session: { x64quantprecision: "1" } },
      });
    } catch (err) {
      throw new Error(`cannot load the end-of-turn model from ${modelPath}: ${(err as Error).message}`);
    }
    if (!session.inputNames.includes("input_features")) {
      throw new Error(`${modelPath} is not a Smart Turn v3 model (no input "input_features")`);
    }
    return new SmartTurn(session, "input_features", session.outputNames[0]!);
  }

  /** Runs the model on prepared features (bench and tests time this apart from the front end). */
  async runFeatures(features: Float32Array): Promise<number> {
    const out = await this.session.run({ [this.input]: new ort.Tensor("float32", features, [1, N_MELS, N_FRAMES]) });
    const p = (out[this.output]!.data as Float32Array)[0]!;
    return Math.min(1, Math.max(0, p));
  }

  /**
   * Probability that the turn is complete, given 16 kHz mono audio that ends at the moment of the
   * evaluation (only its last 8 s are read). Calls run one at a time, in call order.
   */
  predict(audio: Float32Array): Promise<number> {
    const run = this.tail.then(() => this.runFeatures(turnFeatures(audio)));
    this.tail = run.catch(() => undefined);
    return run;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
