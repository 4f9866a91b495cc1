/**
 * A pool of worker threads running engines off the main event loop, with a bounded wait queue:
 * each worker runs one job at a time; when every worker is busy and the queue is full, `run`
 * rejects at once with `NoCapacityError`.
 *
 * Priorities (`DecodePriority`): the queue holds finals, then speculative finals, then partials,
 * first come first served within each. A final or speculative final that finds every worker busy
 * preempts a running partial that has not run long: that partial is rejected at once with `PreemptedError` and its engine
 * stops before its next ONNX call, so the urgent job waits for one call, not for a whole decode.
 */
import { settleWithin } from "../../common/timeout.ts";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { NoCapacityError, PreemptedError, type DecodePriority } from "../coordinator/types.ts";
import type { TranscribeRequest, TranscribeResult } from "../engines/types.ts";
import type { EngineSpec, FromWorker, ToWorker } from "./protocol.ts";

export interface EnginePoolOptions {
  /** Worker threads (default: available cores − 1, at least 1). */
  threads?: number;
  /** Jobs that may wait for a free worker (default 64). */
  queueLimit?: number;
}

interface Job {
  id: number;
  spec: EngineSpec;
  request: TranscribeRequest;
  priority: DecodePriority;
  resolve: (r: TranscribeResult) => void;
  reject: (e: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
  /** performance.now() when the job was submitted. */
  queuedAt: number;
  /** performance.now() when a worker took it. */
  startedAt: number;
  /** The pool asked the worker to stop it (aborted or preempted): its answer is dropped. */
  stopped?: boolean;
}

interface Slot {
  worker: Worker;
  job?: Job;
  /** The running job was preempted: the worker is asked to stop it and stays busy until it answers. */
  preempted?: boolean;
}

const RANK: Record<DecodePriority, number> = { final: 0, speculative: 1, partial: 2 };
/**
 * A running partial is preempted only while it has run less than this share of the engine's recent
 * partial decodes (or less than PREEMPT_FLOOR_MS): one further along would waste more work than the
 * final's wait it saves, which matters when the engine is overloaded.
 */
const PREEMPT_BEFORE = 0.5;
const PREEMPT_FLOOR_MS = 50;

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("the job was aborted", "AbortError");
}

export class EnginePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  readonly threads: number;
  readonly queueLimit: number;

  constructor(opts: EnginePoolOptions = {}) {
    this.threads = Math.max(1, Math.floor(opts.threads ?? Math.max(1, availableParallelism() - 1)));
    this.queueLimit = Math.max(0, Math.floor(opts.queueLimit ?? 64));
    for (let i = 0; i < this.threads; i++) this.slots.push(this.spawn());
  }

  /** Jobs running plus jobs waiting, and how long the oldest waiting job has waited. */
  get load(): { running: number; queued: number; oldestQueuedMs: number } {
    const oldest = this.queue[0];
    return { running: this.slots.filter((s) => s.job).length, queued: this.queue.length, oldestQueuedMs: oldest ? performance.now() - oldest.queuedAt : 0 };
  }

  /** Partials given up to finals so far. */
  preemptions = 0;
  /** Per engine id: moving average of the milliseconds a partial decode runs. */
  private readonly partialMs = new Map<string, number>();

  /**
   * Runs one transcription on a worker. Rejects with NoCapacityError when the queue is full, with
   * PreemptedError when a partial gives way to a final. `priority`: default from `request.partial`.
   */
  run(spec: EngineSpec, request: TranscribeRequest, signal?: AbortSignal, priority?: DecodePriority): Promise<TranscribeResult> {
    if (this.closed) return Promise.reject(new Error("engine pool is closed"));
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const free = this.slots.find((s) => !s.job);
    if (!free && this.queue.length >= this.queueLimit) {
      return Promise.reject(new NoCapacityError(`inference queue full (${this.queueLimit} waiting)`));
    }
    return new Promise<TranscribeResult>((resolve, reject) => {
      const job: Job = { id: this.nextId++, startedAt: 0, spec, request, priority: priority ?? (request.partial ? "partial" : "final"), resolve, reject, signal, queuedAt: performance.now() };
      if (signal) {
        job.onAbort = () => this.abort(job);
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
      if (free) this.start(free, job);
      else {
        this.enqueue(job);
        this.preemptFor(job);
      }
    });
  }

  /** Queues a job after every job of its priority or a more urgent one, before the less urgent. */
  private enqueue(job: Job): void {
    const after = this.queue.findIndex((j) => RANK[j.priority] > RANK[job.priority]);
    if (after < 0) this.queue.push(job);
    else this.queue.splice(after, 0, job);
  }

  /**
   * A queued final or speculative final takes the worker of a running partial that has not run
   * long (see PREEMPT_BEFORE), unless enough workers are already stopping for the urgent jobs queued.
   * The partial started last goes (the least work lost).
   */
  private preemptFor(job: Job): void {
    if (job.priority === "partial") return;
    const urgent = this.queue.filter((j) => j.priority !== "partial").length;
    const stopping = this.slots.filter((s) => s.preempted).length;
    if (urgent <= stopping) return;
    const now = performance.now();
    const young = (j: Job) => now - j.startedAt < Math.max(PREEMPT_FLOOR_MS, PREEMPT_BEFORE * (this.partialMs.get(j.spec.id) ?? Infinity));
    const victim = this.slots
      .filter((s) => s.job && !s.job.stopped && s.job.priority === "partial" && young(s.job))
      .sort((a, b) => b.job!.startedAt - a.job!.startedAt)[0];
    if (!victim) return;
    const partial = victim.job!;
    victim.preempted = true;
    this.preemptions++;
    this.stopRunning(victim, partial);
    this.settle(partial, new PreemptedError());
  }

  /** Asks every worker to drop its cached engine for `engineId`. */
  release(engineId: string): void {
    for (const s of this.slots) s.worker.postMessage({ type: "release", engineId } satisfies ToWorker);
  }

  /**
   * Stops the pool: queued and running jobs are rejected, engines are disposed and the workers
   * are unreferenced. Workers are not terminated: with Bun 1.3, ending a thread that loaded
   * onnxruntime-node aborts the process, so idle workers are left to end with the process.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const err = new Error("engine pool is closed");
    for (const job of this.queue.splice(0)) this.settle(job, err);
    await Promise.all(
      this.slots.map(async (s) => {
        if (s.job) this.settle(s.job, err);
        s.job = undefined;
        const idle = new Promise<void>((resolve) => {
          s.worker.on("message", (m: FromWorker) => {
            if (m.type === "idle") resolve();
          });
        });
        s.worker.postMessage({ type: "shutdown" } satisfies ToWorker);
        await settleWithin(idle, 2000);
        s.worker.unref();
      }),
    );
  }

  private spawn(): Slot {
    const worker = new Worker(new URL("./worker.ts", import.meta.url));
    const slot: Slot = { worker };
    worker.on("message", (msg: FromWorker) => this.onMessage(slot, msg));
    worker.on("error", (err: unknown) => this.onCrash(slot, err instanceof Error ? err : new Error(String(err))));
    worker.on("exit", (code) => {
      if (!this.closed) this.onCrash(slot, new Error(`engine worker exited with code ${code}`));
    });
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    job.startedAt = performance.now();
    slot.job = job;
    slot.preempted = false;
    slot.worker.postMessage({ type: "transcribe", jobId: job.id, spec: job.spec, request: job.request } satisfies ToWorker);
  }

  private onMessage(slot: Slot, msg: FromWorker): void {
    if (msg.type === "idle") return;
    const job = slot.job;
    if (!job || job.id !== msg.jobId) return; // an aborted job's late answer
    slot.job = undefined;
    slot.preempted = false;
    if (msg.type === "result" && job.priority === "partial" && !job.stopped) {
      const ms = performance.now() - job.startedAt;
      const avg = this.partialMs.get(job.spec.id);
      this.partialMs.set(job.spec.id, avg === undefined ? ms : 0.8 * avg + 0.2 * ms);
    }
    if (msg.type === "result") this.settle(job, undefined, msg.result);
    else this.settle(job, Object.assign(new Error(msg.error.message), { name: msg.error.name }));
    this.drain(slot);
  }

  private onCrash(slot: Slot, err: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0 || this.closed) return;
    if (slot.job) this.settle(slot.job, err);
    slot.job = undefined;
    slot.preempted = false;
    slot.worker.removeAllListeners();
    void slot.worker.terminate();
    const fresh = this.spawn();
    this.slots[index] = fresh;
    this.drain(fresh);
  }

  private drain(slot: Slot): void {
    const next = this.queue.shift();
    if (next) this.start(slot, next);
  }

  private abort(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) this.queue.splice(queued, 1);
    // A running job keeps its worker until it answers (its engine is asked to stop early); its
    // result is then dropped.
    const running = this.slots.find((s) => s.job === job);
    if (running) this.stopRunning(running, job);
    this.settle(job, abortError(job.signal!));
  }

  /** Asks a worker to stop its running job, whose answer will be dropped. */
  private stopRunning(slot: Slot, job: Job): void {
    slot.job = { ...job, stopped: true, resolve: () => {}, reject: () => {}, signal: undefined };
    slot.worker.postMessage({ type: "abort", jobId: job.id } satisfies ToWorker);
  }

  private settle(job: Job, err?: Error, result?: TranscribeResult): void {
    if (job.signal && job.onAbort) job.signal.removeEventListener("abort", job.onAbort);
    if (err) job.reject(err);
    else job.resolve(result!);
  }
}
