/**
 * Silero VAD off the main thread, batched across streams: every stream's chunks that arrive in one
 * tick (at most one tick starts per `tickMs`, and one is in flight at a time) go to the worker thread together,
 * scored with one inference per step for all streams at once (`batch-worker.ts`). The main thread
 * never runs the model; at most one tick is in flight, so under load the batches grow instead of
 * queueing inferences. Results equal those of `SileroVad` (the batch rows are independent).
 *
 * 16 kHz only (the front end's rate); `SileroVad` also scores 8 kHz.
 */
import { Worker } from "node:worker_threads";
import type { FromVadWorker, ToVadWorker } from "./batch-protocol.ts";
import type { VadModel, VadSampleRate, VadStream } from "./silero.ts";

/** Samples per chunk at 16 kHz (as `VAD_FRAME_SAMPLES[16000]`; this module does not load onnxruntime). */
const FRAME = 512;

interface Request {
  frames: Float32Array;
  resolve: (p: Float32Array) => void;
  reject: (e: Error) => void;
}

/** Counters of the batching, for benchmarks and metrics. */
export interface BatchedVadStats {
  ticks: number;
  inferences: number;
  chunks: number;
}

export class BatchedVad implements VadModel {
  private nextSlot = 0;
  private readonly free: number[] = [];
  private closing: number[] = [];
  private resets: number[] = [];
  /** Requests of the next tick, per slot, in arrival order (Map keeps insertion order). */
  private pending = new Map<number, Request[]>();
  private inFlight: { id: number; requests: Map<number, Request[]>; released: number[] } | null = null;
  private scheduled = false;
  private tickId = 0;
  readonly stats: BatchedVadStats = { ticks: 0, inferences: 0, chunks: 0 };

  private lastSend = 0;

  /**
   * `tickMs`: least time between two ticks' start. Streams whose chunks arrive within it share one
   * inference; a chunk waits at most this long (plus the tick in flight).
   */
  private constructor(
    private readonly worker: Worker,
    private readonly tickMs: number,
  ) {
    worker.on("message", (m: FromVadWorker) => this.onMessage(m));
    worker.on("error", (e) => this.failAll(e instanceof Error ? e : new Error(String(e))));
  }

  /** Starts the worker thread and loads `silero_vad.onnx` there. */
  static async load(modelPath: string, opts: { tickMs?: number } = {}): Promise<BatchedVad> {
    // Named: the thread shows as `vad` in /proc/<pid>/task/*/comm (the benchmark splits CPU by thread).
    const worker = new Worker(new URL("./batch-worker.ts", import.meta.url), { name: "vad" });
    worker.unref();
    await new Promise<void>((resolve, reject) => {
      const onMessage = (m: FromVadWorker) => {
        if (m.type === "loaded") resolve();
        else if (m.type === "load_failed") reject(new Error(`cannot load Silero VAD model from ${modelPath}: ${m.message}`));
        else return;
        worker.off("message", onMessage);
      };
      worker.on("message", onMessage);
      worker.once("error", reject);
      worker.postMessage({ type: "load", modelPath } satisfies ToVadWorker);
    });
    return new BatchedVad(worker, opts.tickMs ?? 16);
  }

  createStream(sampleRate: VadSampleRate = 16000): VadStream {
    if (sampleRate !== 16000) throw new RangeError(`the batched Silero VAD runs at 16000 Hz, not ${sampleRate}`);
    const slot = this.free.pop() ?? this.nextSlot++;
    this.resets.push(slot);
    let closed = false;
    const processMany = (frames: Float32Array): Promise<Float32Array> => {
      if (closed) return Promise.reject(new Error("VAD stream closed"));
      if (frames.length === 0 || frames.length % FRAME !== 0) {
        return Promise.reject(new RangeError(`VAD chunks must be a multiple of ${FRAME} samples at 16000 Hz, got ${frames.length}`));
      }
      return new Promise((resolve, reject) => this.enqueue(slot, { frames, resolve, reject }));
    };
    return {
      sampleRate: 16000,
      frameSamples: FRAME,
      processMany,
      process: (frame) => (frame.length !== FRAME
        ? Promise.reject(new RangeError(`VAD chunk must be ${FRAME} samples at 16000 Hz, got ${frame.length}`))
        : processMany(frame).then((p) => p[0]!)),
      reset: () => {
        if (closed) return;
        this.resets.push(slot);
        this.schedule();
      },
      close: () => {
        if (closed) return;
        closed = true;
        // Free at once unless chunks of this stream still wait for a tick (they would share the
        // slot with a new stream's); those slots are freed once that tick is answered.
        if (this.pending.has(slot)) this.closing.push(slot);
        else this.free.push(slot);
      },
    };
  }

  /** Slots held by streams not closed yet, or closed with chunks still to score. */
  get slotsHeld(): number {
    return this.nextSlot - this.free.length;
  }

  private enqueue(slot: number, request: Request): void {
    let list = this.pending.get(slot);
    if (!list) this.pending.set(slot, (list = []));
    list.push(request);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight) return;
    this.scheduled = true;
    const go = () => {
      this.scheduled = false;
      this.send();
    };
    const wait = this.lastSend + this.tickMs - performance.now();
    if (wait > 1) setTimeout(go, wait);
    else setImmediate(go);
  }

  /** Sends the pending requests as one tick (at most one tick in flight). */
  private send(): void {
    if (this.inFlight || this.pending.size === 0) return;
    const requests = this.pending;
    this.pending = new Map();
    const n = requests.size;
    const slots = new Int32Array(n);
    const counts = new Int32Array(n);
    let total = 0;
    let i = 0;
    for (const [slot, list] of requests) {
      let c = 0;
      for (const r of list) c += r.frames.length / FRAME;
      slots[i] = slot;
      counts[i++] = c;
      total += c;
    }
    const frames = new Float32Array(total * FRAME);
    let o = 0;
    for (const list of requests.values()) {
      for (const r of list) {
        frames.set(r.frames, o);
        o += r.frames.length;
      }
    }
    const resets = Int32Array.from(this.resets);
    this.resets = [];
    const id = ++this.tickId;
    this.inFlight = { id, requests, released: this.closing };
    this.closing = [];
    this.lastSend = performance.now();
    this.stats.ticks++;
    this.stats.chunks += total;
    // The tick's buffers are handed over, not copied (they are built for this message only).
    this.worker.postMessage({ type: "run", id, slots, counts, resets, frames } satisfies ToVadWorker, [frames.buffer, slots.buffer, counts.buffer, resets.buffer]);
  }

  private onMessage(m: FromVadWorker): void {
    const tick = this.inFlight;
    if (!tick || (m.type !== "result" && m.type !== "failed") || m.id !== tick.id) return;
    this.inFlight = null;
    this.free.push(...tick.released);
    if (m.type === "failed") {
      const error = new Error(`VAD inference failed: ${m.message}`);
      for (const list of tick.requests.values()) for (const r of list) r.reject(error);
    } else {
      this.stats.inferences += m.inferences;
      let o = 0;
      for (const list of tick.requests.values()) {
        for (const r of list) {
          const c = r.frames.length / FRAME;
          r.resolve(m.probs.subarray(o, o + c));
          o += c;
        }
      }
    }
    if (this.pending.size > 0) this.schedule();
  }

  private failAll(error: Error): void {
    const ticks = [this.inFlight?.requests, this.pending];
    this.inFlight = null;
    this.pending = new Map();
    for (const t of ticks) if (t) for (const list of t.values()) for (const r of list) r.reject(error);
  }
}
