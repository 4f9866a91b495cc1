/**
 * The end-of-turn model in a worker thread of its own (`turn-worker.ts`), shared by every session
 * of the process: its load (75–95 ms of onnxruntime-node's session creation) and each evaluation
 * (a Whisper log-mel of 8 s and the model, 60–85 ms of CPU) run there, so that sockets and the
 * other sessions never wait on them. Only the last 8 s of each evaluation's audio are sent.
 */
import { ModelThread } from "../thread/client.ts";
import { TURN_WINDOW_SAMPLES, type TurnModel } from "./smart-turn.ts";

export class TurnModelThread implements TurnModel {
  private constructor(private readonly thread: ModelThread<Float32Array, number>) {}

  /** Starts the thread (`turn`) and loads the Smart Turn file there (rejects as `SmartTurn.load` does). */
  static async load(modelPath: string, threads = 1): Promise<TurnModelThread> {
    return new TurnModelThread(await ModelThread.start(new URL("./turn-worker.ts", import.meta.url), "turn", "end-of-turn model", { modelPath, threads }));
  }

  predict(audio: Float32Array): Promise<number> {
    // A copy of the last 8 s (the model reads no more), handed over to the thread.
    const window = audio.slice(Math.max(0, audio.length - TURN_WINDOW_SAMPLES));
    return this.thread.call(window, [window.buffer]);
  }

  release(): Promise<void> {
    return this.thread.release();
  }
}
