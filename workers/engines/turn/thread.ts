/**
 * The end-of-turn model in a worker thread of its own (`turn-worker.ts`), shared by every session
 * of the process: its load (75–95 ms of onnxruntime-node's session creation) and each evaluation
 * (a Whisper log-mel of 8 s and the model, 60–85 ms of CPU) run there, so that sockets and the
 * other sessions never wait on them. Only the last 8 s of each evaluation's audio are sent.
 */
import { Worker } from "node:worker_threads";
import { TURN_WINDOW_SAMPLES, type TurnModel } from "./smart-turn.ts";
import type { FromTurnWorker, ToTurnWorker } from "./thread-protocol.ts";

interface Pending {
  resolve(probability: number): void;
  reject(err: Error): void;
}

export class TurnModelThread implements TurnModel {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on("message", (m: FromTurnWorker) => this.onMessage(m));
    worker.on("error", (e) => this.failAll(e instanceof Error ? e : new Error(String(e))));
    worker.on("exit", (code) => this.failAll(new Error(`the end-of-turn model's thread exited (code ${code})`)));
  }

  /** Starts the thread and loads the Smart Turn file there (rejects as `SmartTurn.load` does). */
  static async load(modelPath: string, threads = 1): Promise<TurnModelThread> {
    // Named: the thread shows as `turn` in /proc/<pid>/task/*/comm.
    const worker = new Worker(new URL("./turn-worker.ts", import.meta.url), { name: "turn" });
    worker.unref();
    try {
      await new Promise<void>((resolve, reject) => {
        const onMessage = (m: FromTurnWorker) => {
          if (m.type === "loaded") resolve();
          else if (m.type === "load_failed") reject(new Error(m.message));
          else return;
          worker.off("message", onMessage);
        };
        worker.on("message", onMessage);
        worker.once("error", reject);
        worker.postMessage({ type: "load", modelPath, threads } satisfies ToTurnWorker);
      });
    } catch (err) {
      await worker.terminate();
      throw err;
    }
    return new TurnModelThread(worker);
  }

  predict(audio: Float32Array): Promise<number> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    // A copy of the last 8 s (the model reads no more), transferred to the thread.
    const window = audio.slice(Math.max(0, audio.length - TURN_WINDOW_SAMPLES));
    return new Promise<number>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // The thread keeps the process alive only while an evaluation is owed.
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ type: "predict", id, audio: window } satisfies ToTurnWorker, [window.buffer]);
    });
  }

  async release(): Promise<void> {
    this.failAll(new Error("the end-of-turn model was released"));
    await this.worker.terminate();
  }

  private onMessage(m: FromTurnWorker): void {
    if (m.type !== "probability" && m.type !== "failed") return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.worker.unref();
    if (m.type === "probability") p.resolve(m.probability);
    else p.reject(new Error(m.message));
  }

  private failAll(err: Error): void {
    this.failure ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.worker.unref();
  }
}
