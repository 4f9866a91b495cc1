/**
 * Whisper's encoder as one ONNX session or as consecutive stages (`encoder_model*.stage0.onnx`,
 * `.stage1.onnx`, …; scripts/models/convert_ct2_whisper.py writes two: the convolutions, positions
 * and first half of the layers, then the rest). Chained, the stages compute what the whole file
 * computes; between two stages a decode that is no longer wanted stops (its `AbortSignal`), so a
 * superseded partial frees its engine thread after the stage running, not after the whole encoder.
 */
import { existsSync } from "node:fs";
import * as ort from "onnxruntime-node";
import { stopIfAborted } from "../../util/abort.ts";

/** The stage files next to `encoderPath`, in order; empty when it has none (or only one). */
export function encoderStagePaths(encoderPath: string): string[] {
  const base = encoderPath.replace(/\.onnx$/, "");
  const paths: string[] = [];
  while (existsSync(`${base}.stage${paths.length}.onnx`)) paths.push(`${base}.stage${paths.length}.onnx`);
  return paths.length >= 2 ? paths : [];
}

export class WhisperEncoder {
  private constructor(
    private readonly sessions: ort.InferenceSession[],
    /** The files the sessions came from (diagnostics, tests). */
    readonly paths: string[],
  ) {}

  /** The stages of `encoderPath` where they exist, else the whole file. */
  static async load(encoderPath: string, options: ort.InferenceSession.SessionOptions): Promise<WhisperEncoder> {
    const stages = encoderStagePaths(encoderPath);
    const paths = stages.length > 0 ? stages : [encoderPath];
    const sessions: ort.InferenceSession[] = [];
    try {
      for (const p of paths) sessions.push(await ort.InferenceSession.create(p, options));
    } catch (e) {
      await Promise.all(sessions.map((s) => s.release()));
      throw e;
    }
    // Each stage reads what the one before writes, and only the last writes the encoder's output
    // (a stage file left by another cut would break the chain).
    const chained = sessions.every((s, i) =>
      s.inputNames[0] === (i === 0 ? "input_features" : sessions[i - 1]!.outputNames[0]) &&
      (i === sessions.length - 1) === (s.outputNames[0] === "last_hidden_state"));
    if (!chained) {
      await Promise.all(sessions.map((s) => s.release()));
      throw new Error(`${paths.join(", ")}: expected input_features → last_hidden_state, each file reading what the one before writes`);
    }
    return new WhisperEncoder(sessions, paths);
  }

  /** How many sessions one encoding runs (1: the whole file). */
  get stages(): number {
    return this.sessions.length;
  }

  /** The mel input's metadata (its frame count is symbolic when the encoder takes short windows). */
  get inputMetadata(): readonly ort.InferenceSession.ValueMetadata[] {
    return this.sessions[0]!.inputMetadata;
  }

  /** `input_features` → `last_hidden_state`; `signal` is checked before each stage (`stopIfAborted`). */
  async run(features: ort.Tensor, signal?: AbortSignal): Promise<ort.Tensor> {
    let x = features;
    for (const session of this.sessions) {
      await stopIfAborted(signal);
      const out = await session.run({ [session.inputNames[0]!]: x });
      x = out[session.outputNames[0]!]!;
    }
    return x;
  }

  async release(): Promise<void> {
    await Promise.all(this.sessions.map((s) => s.release()));
  }
}
