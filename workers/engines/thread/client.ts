/**
 * A model in a worker thread of its own, called from the event loop: onnxruntime-node loads and runs
 * a session on the thread that calls it, so a model on the main thread holds every socket while it
 * loads and while it runs. The thread loads the model once (`serveModel` on its side) and answers
 * calls in the order they were made; it keeps the process alive only while a call is owed.
 */
import { Worker } from "node:worker_threads";
import type { FromModelWorker, ToModelWorker } from "./protocol.ts";

interface Pending<Out> {
  resolve(output: Out): void;
  reject(err: Error): void;
}

export class ModelThread<In, Out> {
  private readonly pending = new Map<number, Pending<Out>>();
  private nextId = 1;
  private failure: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly what: string,
  ) {
    worker.on("message", (m: FromModelWorker<Out>) => this.onMessage(m));
    worker.on("error", (e) => this.failAll(e instanceof Error ? e : new Error(String(e))));
    worker.on("exit", (code) => this.failAll(new Error(`the ${what} thread exited (code ${code})`)));
  }

  /**
   * Starts `script` as a thread named `name` (as it shows in /proc/<pid>/task/*\/comm) and loads its
   * model with `args`; rejects with the load's own error.
   */
  static async start<Args, In, Out>(script: URL, name: string, what: string, args: Args): Promise<ModelThread<In, Out>> {
    const worker = new Worker(script, { name });
    worker.unref();
    try {
      await new Promise<void>((resolve, reject) => {
        const onMessage = (m: FromModelWorker<Out>) => {
          if (m.type === "loaded") resolve();
          else if (m.type === "load_failed") reject(new Error(m.message));
          else return;
          worker.off("message", onMessage);
        };
        worker.on("message", onMessage);
        worker.once("error", reject);
        worker.postMessage({ type: "load", args } satisfies ToModelWorker<Args, In>);
      });
    } catch (err) {
      await worker.terminate();
      throw err;
    }
    return new ModelThread<In, Out>(worker, what);
  }

  /** Runs the model on `input`; `transfer` lists buffers of `input` the thread takes over. */
  call(input: In, transfer: ArrayBuffer[] = []): Promise<Out> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<Out>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ type: "call", id, input } satisfies ToModelWorker<never, In>, transfer);
    });
  }

  async release(): Promise<void> {
    this.failAll(new Error(`the ${this.what} was released`));
    await this.worker.terminate();
  }

  private onMessage(m: FromModelWorker<Out>): void {
    if (m.type !== "result" && m.type !== "failed") return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.worker.unref();
    if (m.type === "result") p.resolve(m.output);
    else p.reject(new Error(m.message));
  }

  private failAll(err: Error): void {
    this.failure ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.worker.unref();
  }
}
