/**
 * The speaker encoder in a worker thread of its own (`speaker-worker.ts`), shared by every session
 * of the process: its load and each utterance's voice print (a mel spectrogram and the model) run
 * there, not on the event loop.
 */
import { ModelThread } from "../thread/client.ts";
import type { VoicePrinter } from "./encoder.ts";

export class SpeakerEncoderThread implements VoicePrinter {
  private constructor(private readonly thread: ModelThread<Float32Array, Float32Array>) {}

  /** Starts the thread (`speaker`) and loads the encoder there (rejects as `SpeakerEncoder.load` does). */
  static async load(modelPath: string, threads = 1): Promise<SpeakerEncoderThread> {
    return new SpeakerEncoderThread(await ModelThread.start(new URL("./speaker-worker.ts", import.meta.url), "speaker", "speaker encoder", { modelPath, threads }));
  }

  embed(wav: Float32Array): Promise<Float32Array> {
    if (wav.length === 0) return Promise.reject(new RangeError("cannot embed an empty utterance"));
    const copy = wav.slice();
    return this.thread.call(copy, [copy.buffer]);
  }

  release(): Promise<void> {
    return this.thread.release();
  }
}
