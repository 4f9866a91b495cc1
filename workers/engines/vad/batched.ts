/**
 * Silero VAD off the main thread, batched across streams: every stream's chunks that arrive in one
 * tick go to the worker thread together, scored with one inference per step for all streams at once
 * (`batch-worker.ts`). A tick starts at least `tickMs` after the previous one; while other active
 * streams have sent nothing yet, it waits for them up to `windowMs` after its first chunk (a lone
 * stream does not wait, nor does an urgent chunk: one whose score a pause partial or a final may
 * wait on, and with it an acknowledgment). One tick is in flight at a time, so under load the
 * batches grow instead of queueing inferences. The main thread never runs the model. Results equal
 * those of `SileroVad` (the batch rows are independent).
 *
 * 16 kHz only (the front end's rate); `SileroVad` also scores 8 kHz.
 */
import { Worker } from "node:worker_threads";
import { CTL, CTL_WORDS, type FromVadWorker, type SharedVadBuffers, type ToVadWorker } from "./batch-protocol.ts";
import type { VadModel, VadSampleRate, VadStream } from "../../contract/vad.ts";

/** Samples per chunk at 16 kHz (as `VAD_FRAME_SAMPLES[16000]`; this module does not load onnxruntime). */
const FRAME = 512;
/** Most chunks one tick carries (about 70 minutes of audio); more wait for the next tick. */
const MAX_TICK_CHUNKS = 1 << 17;
/** A stream that sent chunks within this many ms is expected to send more soon (its next frame). */
const ACTIVE_MS = 250;
/**
 * How long the first chunk of a tick may wait for the other active streams' chunks. A wake-up of the
 * VAD thread costs about as much as an inference, and a run after one costs twice a run right after
 * another; one inference for two streams costs 1.3 times one for one.
 */
const DEFAULT_WINDOW_MS = 40;
/** Most streams plus resets one tick carries (the slots of streams open at once). */
const MAX_TICK_STREAMS = 1 << 20;

interface Request {
  frames: Float32Array;
  urgent: boolean;
  resolve: (p: Float32Array) => void;
  reject: (e: Error) => void;
}

/** Counters of the batching, for benchmarks and metrics. */
export interface BatchedVadStats {
  ticks: number;
  inferences: number;
  chunks: number;
}

/** The shared buffers and the main thread's views of them (length-tracking: they follow `grow`). */
class SharedTick {
  readonly buffers: SharedVadBuffers = {
    control: new SharedArrayBuffer(CTL_WORDS * 4),
    index: new SharedArrayBuffer(64 * 4, { maxByteLength: 3 * MAX_TICK_STREAMS * 4 }),
    frames: new SharedArrayBuffer(16 * FRAME * 4, { maxByteLength: MAX_TICK_CHUNKS * FRAME * 4 }),
    probs: new SharedArrayBuffer(16 * 4, { maxByteLength: MAX_TICK_CHUNKS * 4 }),
  };
  readonly control = new Int32Array(this.buffers.control);
  readonly index = new Int32Array(this.buffers.index);
  readonly frames = new Float32Array(this.buffers.frames);
  readonly probs = new Float32Array(this.buffers.probs);

  /** Grows the buffers to hold `streams` streams, `resets` resets and `chunks` chunks (between ticks only). */
  reserve(streams: number, resets: number, chunks: number): void {
    grow(this.buffers.index, (2 * streams + resets) * 4);
    grow(this.buffers.frames, chunks * FRAME * 4);
    grow(this.buffers.probs, chunks * 4);
  }
}

function grow(b: SharedArrayBuffer, bytes: number): void {
  if (bytes > b.byteLength) b.grow(Math.min(b.maxByteLength, Math.max(bytes, 2 * b.byteLength)));
}

export class BatchedVad implements VadModel {
  private nextSlot = 0;
  private readonly free: number[] = [];
  private closing: number[] = [];
  private resets: number[] = [];
  /** Requests of the next tick, per slot, in arrival order (Map keeps insertion order). */
  private pending = new Map<number, Request[]>();
  private inFlight: { id: number; requests: Map<number, Request[]>; released: number[] } | null = null;
  /** The timer of the next tick (null: none, or an immediate), the time it is due, and whether an immediate is queued. */
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerDue = 0;
  private immediate = false;
  /** When the oldest chunk waiting for a tick arrived. */
  private firstPendingAt = 0;
  /** Some chunk waiting for a tick is urgent: the tick waits for no other stream. */
  private urgentPending = false;
  /** When each open stream last sent chunks. */
  private readonly lastSeen = new Map<number, number>();
  private tickId = 0;
  readonly stats: BatchedVadStats = { ticks: 0, inferences: 0, chunks: 0 };

  private lastSend = 0;
  private readonly go = () => {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.immediate = false;
    this.send();
  };

  /**
   * `tickMs`: least time between two ticks' start. `windowMs`: how long a tick's first chunk may wait
   * for the chunks of the other streams that sent some within the last `ACTIVE_MS` (0: no wait).
   * Streams whose chunks arrive within them share one inference; a chunk waits at most the larger
   * of the two (plus the tick in flight).
   */
  private constructor(
    private readonly worker: Worker,
    private readonly shared: SharedTick,
    private readonly tickMs: number,
    private readonly windowMs: number,
  ) {
    worker.on("message", (m: FromVadWorker) => this.onMessage(m));
    worker.on("error", (e) => this.failAll(e instanceof Error ? e : new Error(String(e))));
  }

  /** Starts the worker thread and loads `silero_vad.onnx` there. */
  static async load(modelPath: string, opts: { tickMs?: number; windowMs?: number } = {}): Promise<BatchedVad> {
    // Named: the thread shows as `vad` in /proc/<pid>/task/*/comm (the benchmark splits CPU by thread).
    const worker = new Worker(new URL("./batch-worker.ts", import.meta.url), { name: "vad" });
    worker.unref();
    const shared = new SharedTick();
    await new Promise<void>((resolve, reject) => {
      const onMessage = (m: FromVadWorker) => {
        if (m.type === "loaded") resolve();
        else if (m.type === "load_failed") reject(new Error(`cannot load Silero VAD model from ${modelPath}: ${m.message}`));
        else return;
        worker.off("message", onMessage);
      };
      worker.on("message", onMessage);
      worker.once("error", reject);
      worker.postMessage({ type: "load", modelPath, buffers: shared.buffers } satisfies ToVadWorker);
    });
    return new BatchedVad(worker, shared, opts.tickMs ?? 16, opts.windowMs ?? DEFAULT_WINDOW_MS);
  }

  createStream(sampleRate: VadSampleRate = 16000): VadStream {
    if (sampleRate !== 16000) throw new RangeError(`the batched Silero VAD runs at 16000 Hz, not ${sampleRate}`);
    const slot = this.free.pop() ?? this.nextSlot++;
    this.resets.push(slot);
    let closed = false;
    const processMany = (frames: Float32Array, urgent = false): Promise<Float32Array> => {
      if (closed) return Promise.reject(new Error("VAD stream closed"));
      if (frames.length === 0 || frames.length % FRAME !== 0) {
        return Promise.reject(new RangeError(`VAD chunks must be a multiple of ${FRAME} samples at 16000 Hz, got ${frames.length}`));
      }
      if (frames.length > MAX_TICK_CHUNKS * FRAME) return Promise.reject(new RangeError(`at most ${MAX_TICK_CHUNKS} VAD chunks per call, got ${frames.length / FRAME}`));
      return new Promise((resolve, reject) => this.enqueue(slot, { frames, urgent, resolve, reject }));
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
        this.lastSeen.delete(slot);
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
    const now = performance.now();
    let list = this.pending.get(slot);
    if (!list) this.pending.set(slot, (list = []));
    if (this.pending.size === 1 && list.length === 0) this.firstPendingAt = now;
    list.push(request);
    this.urgentPending ||= request.urgent;
    this.lastSeen.set(slot, now);
    this.schedule(now);
  }

  /** Every stream that sent chunks within `ACTIVE_MS` has chunks waiting (so waiting longer batches nothing more). */
  private allActivePending(now: number): boolean {
    for (const [slot, at] of this.lastSeen) if (now - at < ACTIVE_MS && !this.pending.has(slot)) return false;
    return true;
  }

  /**
   * Plans the next tick: at least `tickMs` after the previous one; and while some active stream has
   * nothing waiting yet, up to `windowMs` after the first waiting chunk, so streams whose frames
   * arrive a little apart share the inferences (a lone stream, all streams waiting, or an urgent
   * chunk go at once).
   */
  private schedule(now = performance.now()): void {
    if (this.inFlight || this.pending.size === 0) return;
    let due = this.lastSend + this.tickMs;
    if (this.windowMs > 0 && !this.urgentPending && !this.allActivePending(now)) due = Math.max(due, this.firstPendingAt + this.windowMs);
    if (this.timer !== null) {
      if (Math.abs(due - this.timerDue) < 1) return;
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.timerDue = due;
    const wait = due - now;
    if (wait > 1) this.timer = setTimeout(this.go, wait);
    else if (!this.immediate) {
      this.immediate = true;
      setImmediate(this.go);
    }
  }

  /** The pending requests that fit in one tick, in arrival order (the rest stay pending), and their chunks. */
  private take(): { requests: Map<number, Request[]>; chunks: number } {
    let chunks = 0;
    for (const list of this.pending.values()) for (const r of list) chunks += r.frames.length / FRAME;
    if (chunks <= MAX_TICK_CHUNKS) {
      const requests = this.pending;
      this.pending = new Map();
      this.urgentPending = false;
      return { requests, chunks };
    }
    const requests = new Map<number, Request[]>();
    chunks = 0;
    for (const [slot, list] of this.pending) {
      let k = 0;
      while (k < list.length && (chunks + list[k]!.frames.length / FRAME <= MAX_TICK_CHUNKS || chunks === 0)) chunks += list[k++]!.frames.length / FRAME;
      if (k === 0) break;
      requests.set(slot, list.splice(0, k));
      if (list.length > 0) break;
    }
    for (const [slot, list] of this.pending) if (list.length === 0) this.pending.delete(slot);
    this.urgentPending = [...this.pending.values()].some((list) => list.some((r) => r.urgent));
    return { requests, chunks };
  }

  /** Writes the pending requests into the shared buffers as one tick and wakes the worker (one tick in flight). */
  private send(): void {
    if (this.inFlight || this.pending.size === 0) return;
    const { requests, chunks: total } = this.take();
    const n = requests.size;
    const resets = this.resets;
    this.resets = [];
    const { control, index, frames } = this.shared;
    this.shared.reserve(n, resets.length, total);
    let i = 0;
    let o = 0;
    for (const [slot, list] of requests) {
      index[i] = slot;
      let c = 0;
      for (const r of list) {
        frames.set(r.frames, o);
        o += r.frames.length;
        c += r.frames.length / FRAME;
      }
      index[n + i++] = c;
    }
    for (let k = 0; k < resets.length; k++) index[2 * n + k] = resets[k]!;
    control[CTL.STREAMS] = n;
    control[CTL.RESETS] = resets.length;
    const id = ++this.tickId;
    // Closed streams' slots are free once no chunk of theirs waits any more.
    this.inFlight = { id, requests, released: this.closing.filter((slot) => !this.pending.has(slot)) };
    this.closing = this.closing.filter((slot) => this.pending.has(slot));
    this.lastSend = performance.now();
    this.stats.ticks++;
    this.stats.chunks += total;
    // The worker's wake-up keeps the process alive while a tick is in flight (as a message would).
    this.worker.ref();
    const done = Atomics.load(control, CTL.DONE);
    Atomics.store(control, CTL.REQUEST, id);
    Atomics.notify(control, CTL.REQUEST);
    const wait = Atomics.waitAsync(control, CTL.DONE, done);
    if (wait.async) void wait.value.then(() => this.onDone(id));
    else queueMicrotask(() => this.onDone(id));
  }

  /** Tick `id` is scored: its probabilities go to the requests (copied: the buffers serve the next tick). */
  private onDone(id: number): void {
    const tick = this.inFlight;
    if (!tick || tick.id !== id || Atomics.load(this.shared.control, CTL.DONE) !== id) return;
    this.settle(tick);
    this.stats.inferences += this.shared.control[CTL.INFERENCES]!;
    const probs = this.shared.probs;
    let o = 0;
    for (const list of tick.requests.values()) {
      for (const r of list) {
        const c = r.frames.length / FRAME;
        r.resolve(probs.slice(o, o + c));
        o += c;
      }
    }
  }

  private onMessage(m: FromVadWorker): void {
    const tick = this.inFlight;
    if (!tick || m.type !== "failed" || m.id !== tick.id) return;
    this.settle(tick);
    const error = new Error(`VAD inference failed: ${m.message}`);
    for (const list of tick.requests.values()) for (const r of list) r.reject(error);
  }

  /** The tick in flight is answered: its released slots are free, and the next tick may go. */
  private settle(tick: NonNullable<BatchedVad["inFlight"]>): void {
    this.inFlight = null;
    this.worker.unref();
    this.free.push(...tick.released);
    if (this.pending.size > 0) this.schedule();
  }

  private failAll(error: Error): void {
    const ticks = [this.inFlight?.requests, this.pending];
    if (this.inFlight) this.worker.unref();
    this.inFlight = null;
    this.pending = new Map();
    this.urgentPending = false;
    for (const t of ticks) if (t) for (const list of t.values()) for (const r of list) r.reject(error);
  }
}
