/**
 * Silero VAD (v5 ONNX) wrapper: one shared InferenceSession, many independent streams.
 *
 * Each call scores one chunk of 512 samples at 16 kHz (256 at 8 kHz). The model input is the
 * chunk prefixed with the last 64 (32) samples of the previous chunk (zeros at the start), and a
 * recurrent state [2, 1, 128] is carried from call to call.
 */

import * as ort from "onnxruntime-node";

export type VadSampleRate = 16000 | 8000;

/** Chunk length in samples the model scores at each rate. */
export const VAD_FRAME_SAMPLES: Record<VadSampleRate, number> = { 16000: 512, 8000: 256 };
/** Samples of the previous chunk prepended to the next one. */
export const VAD_CONTEXT_SAMPLES: Record<VadSampleRate, number> = { 16000: 64, 8000: 32 };

const STATE_SIZE = 2 * 1 * 128;

/** One channel's running VAD: the recurrent state and the context carried between chunks. */
export interface VadStream {
  readonly sampleRate: VadSampleRate;
  /** Samples per chunk that `process` expects (512 at 16 kHz, 256 at 8 kHz). */
  readonly frameSamples: number;
  /**
   * Speech probability (0..1) of the next chunk. Calls are applied in call order even when the
   * caller does not await between them.
   */
  process(frame: Float32Array): Promise<number>;
  /** Forgets the state and context, as at the start of a stream. */
  reset(): void;
}

export class SileroVad {
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
    let state = new Float32Array(STATE_SIZE);
    let context = new Float32Array(contextSamples);
    let tail: Promise<unknown> = Promise.resolve();

    async function score(frame: Float32Array): Promise<number> {
      const input = new Float32Array(contextSamples + frameSamples);
      input.set(context, 0);
      input.set(frame, contextSamples);
      const out = await session.run({
        input: new ort.Tensor("float32", input, [1, input.length]),
        state: new ort.Tensor("float32", state, [2, 1, 128]),
        sr,
      });
      state = new Float32Array(out.stateN!.data as Float32Array);
      context = input.slice(input.length - contextSamples);
      return (out.output!.data as Float32Array)[0]!;
    }

    return {
      sampleRate,
      frameSamples,
      process(frame) {
        if (frame.length !== frameSamples) {
          return Promise.reject(
            new RangeError(`VAD chunk must be ${frameSamples} samples at ${sampleRate} Hz, got ${frame.length}`),
          );
        }
        const result = tail.then(() => score(frame));
        tail = result.catch(() => undefined);
        return result;
      },
      reset() {
        state = new Float32Array(STATE_SIZE);
        context = new Float32Array(contextSamples);
      },
    };
  }

  /** Releases the ONNX session. */
  async close(): Promise<void> {
    await this.session.release();
  }
}
