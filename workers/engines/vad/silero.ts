/**
 * Silero VAD (v5 ONNX) wrapper: one shared InferenceSession, many independent streams.
 *
 * Each call scores one chunk of 512 samples at 16 kHz (256 at 8 kHz). The model input is the
 * chunk prefixed with the last 64 (32) samples of the previous chunk (zeros at the start), and a
 * recurrent state [2, 1, 128] is carried from call to call.
 */

import * as ort from "onnxruntime-node";
import type { VadModel, VadSampleRate, VadStream } from "../../contract/vad.ts";

/** Chunk length in samples the model scores at each rate. */
export const VAD_FRAME_SAMPLES: Record<VadSampleRate, number> = { 16000: 512, 8000: 256 };
/** Samples of the previous chunk prepended to the next one. */
const VAD_CONTEXT_SAMPLES: Record<VadSampleRate, number> = { 16000: 64, 8000: 32 };

const STATE_SIZE = 2 * 1 * 128;

export class SileroVad implements VadModel {
  private constructor(private readonly session: ort.InferenceSession) {}

  /** Loads `silero_vad.onnx` (one InferenceSession, one intra-op thread). */
  static async load(modelPath: string): Promise<SileroVad> {
    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(modelPath, {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        executionMode: "sequential",
        graphOptimizationLevel: "all",
      });
    } catch (err) {
      throw new Error(`cannot load Silero VAD model from ${modelPath}: ${(err as Error).message}`);
    }
    for (const name of ["input", "state", "sr"]) {
      if (!session.inputNames.includes(name)) {
        throw new Error(`${modelPath} is not a Silero VAD v5 model (no input "${name}")`);
      }
    }
    return new SileroVad(session);
  }

  /** Creates an independent stream (one per audio channel). */
  createStream(sampleRate: VadSampleRate = 16000): VadStream {
    if (sampleRate !== 16000 && sampleRate !== 8000) {
      throw new RangeError(`Silero VAD runs at 16000 or 8000 Hz, not ${sampleRate}`);
    }
    const session = this.session;
    const frameSamples = VAD_FRAME_SAMPLES[sampleRate];
    const contextSamples = VAD_CONTEXT_SAMPLES[sampleRate];
    const sr = new ort.Tensor("int64", BigInt64Array.from([BigInt(sampleRate)]), []);
    // One input row and one state, reused by every call: the context is the row's first samples.
    const input = new Float32Array(contextSamples + frameSamples);
    const state = new Float32Array(STATE_SIZE);
    const feeds = {
      input: new ort.Tensor("float32", input, [1, input.length]),
      state: new ort.Tensor("float32", state, [2, 1, 128]),
      sr,
    };
    let tail: Promise<unknown> = Promise.resolve();

    async function score(frames: Float32Array): Promise<Float32Array> {
      const probs = new Float32Array(frames.length / frameSamples);
      for (let k = 0; k < probs.length; k++) {
        input.copyWithin(0, frameSamples, frameSamples + contextSamples);
        input.set(frames.subarray(k * frameSamples, (k + 1) * frameSamples), contextSamples);
        const out = await session.run(feeds);
        state.set(out.stateN!.data as Float32Array);
        probs[k] = (out.output!.data as Float32Array)[0]!;
      }
      return probs;
    }

    function processMany(frames: Float32Array): Promise<Float32Array> {
      if (frames.length === 0 || frames.length % frameSamples !== 0) {
        return Promise.reject(
          new RangeError(`VAD chunks must be a multiple of ${frameSamples} samples at ${sampleRate} Hz, got ${frames.length}`),
        );
      }
      const result = tail.then(() => score(frames));
      tail = result.catch(() => undefined);
      return result;
    }

    return {
      sampleRate,
      frameSamples,
      processMany,
      process(frame) {
        if (frame.length !== frameSamples) {
          return Promise.reject(
            new RangeError(`VAD chunk must be ${frameSamples} samples at ${sampleRate} Hz, got ${frame.length}`),
          );
        }
        return processMany(frame).then((p) => p[0]!);
      },
      reset() {
        tail = tail.then(() => {
          state.fill(0);
          input.fill(0);
        });
      },
      close() {},
    };
  }

  /** Releases the ONNX session. */
  async close(): Promise<void> {
    await this.session.release();
  }
}
