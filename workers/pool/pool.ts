/**
 * A pool of worker threads running engines off the main event loop, with a bounded wait queue:
 * each worker runs one job at a time; when the jobs running or waiting that are as urgent as a new
 * one fill every worker and the queue, `run` rejects it at once with `NoCapacityError` (less urgent
 * jobs run after it, so they do not count: partials waiting never get a final refused).
 *
 * Priorities (`DecodePriority`): the queue holds finals, then speculative finals, then partials,
 * then background decodes, first come first served within each. A running partial is not preempted: on Whisper the encoder
 * call (most of a short decode) cannot be cut short, so a preempted partial kept its worker nearly
 * as long and its work was lost (bench/latency/README.md). A running background decode is
 * suspended: when a more urgent job finds no worker free, the background job is asked to wait at
 * its engine's next stop point (its beam search's next step), its work so far kept, and goes on
 * on the same worker once nothing more urgent waits. A revision of committed words thus never
 * holds a stream's partials or a final behind its seconds-long beam search on a pool of one
 * thread, and is not started over each time one runs first.
 *
 * Idle cores: a final, speculative final or background decode that finds every worker idle and no other job waiting,
 * while no two jobs have overlapped for `widenQuietMs`, runs on the first worker with every core
 * of the pool (`TranscribeRequest.cores`; Whisper's encoder then takes 2 threads: tiny.en's 180 ms
 * → 100 ms on this project's 2-core machine). A job arriving during a widened one shares the
 * cores with it and both lose (bench/README.md): jobs submitted in one turn of the event loop
 * (e.g. the pauses of several streams scored in one VAD tick) are placed together, one core each,
 * and a pool that has needed a second worker lately (several streams) does not widen at all. Only
 * the first worker is ever asked for more cores: a wider session is loaded once, not per worker.
 */
import { settleWithin } from "../../common/timeout.ts";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { NoCapacityError, priorityOf, type DecodePriority } from "../contract/types.ts";
import type { TranscribeRequest, TranscribeResult } from "../engines/types.ts";
import type { EngineSpec, FromWorker, ToWorker } from "./protocol.ts";

export interface EnginePoolOptions {
  /** Worker threads (default: available cores − 1, at least 1). */
  threads?: number;
  /** Jobs that may wait for a free worker (default 64). */
  queueLimit?: number;
  /**
   * Let a lone final or speculative final use every worker's core (default true with 2 or more
   * threads); false: one core per job.
   */
  widenWhenIdle?: boolean;
  /** How long no two jobs may have overlapped (run together, or one waited) before a lone job widens (default 2000 ms). */
  widenQuietMs?: number;
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
  /** Warm-up: the worker (index) this job must run on, and the cores it asks for. */
  pinned?: { slot: number; cores: number };
  /** performance.now() when a worker took it (or resumed it), and the cores it was given. */
  started?: { at: number; cores: number };
  /** The cores it was started with: a suspended job goes on with them. */
  cores?: number;
  /** Aborted while running: its worker's answer is awaited and dropped. */
  dropped?: boolean;
  /** A background job asked to wait for a more urgent one (`suspend`), until its worker answers that it waits. */
  suspending?: boolean;
}

interface Slot {
  worker: Worker;
  job?: Job;
  /** Background jobs suspended on this worker, oldest first: each goes on here, and only here. */
  parked: Job[];
}

const RANK: Record<DecodePriority, number> = { final: 0, speculative: 1, partial: 2, background: 3 };

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("the job was aborted", "AbortError");
}

export class EnginePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** A placement of the queued jobs is scheduled (end of this turn of the event loop). */
  private placing = false;
  readonly threads: number;
  readonly queueLimit: number;
  readonly widenWhenIdle: boolean;
  readonly widenQuietMs: number;
  /** performance.now() when two jobs last overlapped (a job started or waited while another ran). */
  private overlappedAt = -Infinity;
  /** Jobs that ran with more than one core (diagnostics, tests). */
  widened = 0;
  /** Background jobs suspended for a more urgent one (each resumed later on its worker). */
  preempted = 0;
  /** Engine-seconds spent per engine id (see `engineSeconds`). */
  private readonly spent = new Map<string, number>();

  constructor(opts: EnginePoolOptions = {}) {
    this.threads = Math.max(1, Math.floor(opts.threads ?? Math.max(1, availableParallelism() - 1)));
    this.queueLimit = Math.max(0, Math.floor(opts.queueLimit ?? 64));
    this.widenWhenIdle = (opts.widenWhenIdle ?? true) && this.threads > 1;
    this.widenQuietMs = Math.max(0, opts.widenQuietMs ?? 2000);
    for (let i = 0; i < this.threads; i++) this.slots.push(this.spawn());
  }

  /** Jobs running plus jobs waiting (queued or suspended), and how long the oldest queued job has waited. */
  get load(): { running: number; queued: number; oldestQueuedMs: number } {
    const oldest = this.queue[0];
    const parked = this.slots.reduce((n, s) => n + s.parked.length, 0);
    return { running: this.slots.filter((s) => s.job).length, queued: this.queue.length + parked, oldestQueuedMs: oldest ? performance.now() - oldest.queuedAt : 0 };
  }

  /**
   * Engine-seconds spent per engine id since the pool started: each job's time on its worker, from
   * start to answer, times the cores it was given (aborted jobs count until their worker is free
   * again; warm-up does not count). Admission measures a stream's cost from it.
   */
  engineSeconds(): ReadonlyMap<string, number> {
    return this.spent;
  }

  /**
   * Runs one transcription on a worker. Rejects with NoCapacityError when the queue is full.
   * `priority`: default from `request.partial`.
   */
  run(spec: EngineSpec, request: TranscribeRequest, signal?: AbortSignal, priority?: DecodePriority): Promise<TranscribeResult> {
    if (this.closed) return Promise.reject(new Error("engine pool is closed"));
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const free = this.slots.find((s) => !s.job);
    const level = priorityOf({ priority, request });
    const rank = RANK[level];
    // Jobs waiting for this turn's placement hold a place as surely as running ones. Less urgent
    // jobs do not count: they run after this one, so partials waiting never get a final refused.
    const ahead = (j: Job | undefined) => j !== undefined && RANK[j.priority] <= rank;
    const before = this.slots.filter((s) => ahead(s.job)).length + this.queue.filter(ahead).length + this.slots.flatMap((s) => s.parked).filter(ahead).length;
    if (before >= this.threads + this.queueLimit) {
      return Promise.reject(new NoCapacityError(`inference queue full (${this.queueLimit} waiting)`));
    }
    return new Promise<TranscribeResult>((resolve, reject) => {
      const job: Job = { id: this.nextId++, spec, request, priority: level, resolve, reject, signal, queuedAt: performance.now() };
      if (signal) {
        job.onAbort = () => this.abort(job);
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
      if (!this.widenWhenIdle) {
        this.enqueue(job);
        if (free) return this.drain(free); // a job suspended there goes on first
        return this.preempt();
      }
      this.enqueue(job);
      if (!free) this.preempt();
      else if (!this.placing) {
        this.placing = true;
        setImmediate(() => {
          this.placing = false;
          this.place();
        });
      }
    });
  }

  /**
   * Warms every worker: runs `requests` in order on each one (and, where a lone job may widen, on
   * the first worker with every core: that wider session is loaded too), so that the first session
   * finds its engine loaded and its first inference done. Resolves once every worker has answered.
   */
  async warm(spec: EngineSpec, requests: TranscribeRequest[]): Promise<void> {
    const plans = this.slots.map((_, slot) => ({ slot, cores: 1 }));
    if (this.widenWhenIdle) plans.push({ slot: 0, cores: this.threads });
    await Promise.all(
      plans.map(async (pinned) => {
        for (const request of requests) await this.runPinned(spec, request, pinned);
      }),
    );
  }

  private runPinned(spec: EngineSpec, request: TranscribeRequest, pinned: { slot: number; cores: number }): Promise<TranscribeResult> {
    if (this.closed) return Promise.reject(new Error("engine pool is closed"));
    return new Promise<TranscribeResult>((resolve, reject) => {
      this.enqueue({ id: this.nextId++, spec, request, priority: "partial", resolve, reject, queuedAt: performance.now(), pinned });
      const slot = this.slots[pinned.slot]!;
      if (!slot.job) this.drain(slot);
    });
  }

  /** The next queued job `slot` may run: the first not pinned to another worker. */
  private takeFor(slot: Slot): Job | undefined {
    const index = this.queue.findIndex((j) => !j.pinned || this.slots[j.pinned.slot] === slot);
    return index < 0 ? undefined : this.queue.splice(index, 1)[0];
  }

  /**
   * A free worker with a suspended job resumes it unless a more urgent job waits that it may run:
   * true when it did.
   */
  private resumeOn(slot: Slot): boolean {
    const parked = slot.parked[0];
    if (!parked) return false;
    const next = this.queue.find((j) => !j.pinned || this.slots[j.pinned.slot] === slot);
    if (next && RANK[next.priority] < RANK[parked.priority]) return false;
    slot.parked.shift();
    slot.job = parked;
    parked.started = { at: performance.now(), cores: parked.cores ?? 1 };
    slot.worker.postMessage({ type: "resume", jobId: parked.id } satisfies ToWorker);
    return true;
  }

  /** Starts queued jobs on free workers; a lone urgent job with every worker idle gets every core. */
  private place(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (slot.job || this.resumeOn(slot)) continue;
      const next = this.takeFor(slot);
      if (!next) continue;
      if (next.pinned) {
        this.start(slot, next, next.pinned.cores);
        continue;
      }
      const alone = this.queue.length === 0 && this.slots.every((s) => !s.job);
      const now = performance.now();
      if (!alone) this.overlappedAt = now;
      if (alone && next.priority !== "partial" && now - this.overlappedAt >= this.widenQuietMs) {
        this.widened++;
        this.start(this.slots[0]!, next, this.threads);
        return;
      }
      this.start(slot, next, 1);
    }
  }

  /**
   * A more urgent job waits and every worker is busy: a worker running a background job is asked to
   * suspend it (one at a time); `onMessage` parks it on that worker once it waits.
   */
  private preempt(): void {
    if (this.slots.some((s) => !s.job) || !this.queue.some((j) => !j.pinned && j.priority !== "background")) return;
    if (this.slots.some((s) => s.job?.suspending)) return;
    const slot = this.slots.find((s) => s.job && !s.job.pinned && s.job.priority === "background");
    if (!slot) return;
    slot.job!.suspending = true;
    this.preempted++;
    slot.worker.postMessage({ type: "suspend", jobId: slot.job!.id } satisfies ToWorker);
  }

  /** Queues a job after every job of its priority or a more urgent one, before the less urgent. */
  private enqueue(job: Job): void {
    const after = this.queue.findIndex((j) => RANK[j.priority] > RANK[job.priority]);
    if (after < 0) this.queue.push(job);
    else this.queue.splice(after, 0, job);
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
        for (const job of [...(s.job ? [s.job] : []), ...s.parked.splice(0)]) this.settle(job, err);
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
    // Named: the thread shows as `engine` in /proc/<pid>/task/*/comm (the benchmark splits CPU by thread).
    const worker = new Worker(new URL("./worker.ts", import.meta.url), { name: "engine" });
    const slot: Slot = { worker, parked: [] };
    worker.on("message", (msg: FromWorker) => this.onMessage(slot, msg));
    worker.on("error", (err: unknown) => this.onCrash(slot, err instanceof Error ? err : new Error(String(err))));
    worker.on("exit", (code) => {
      if (!this.closed) this.onCrash(slot, new Error(`engine worker exited with code ${code}`));
    });
    return slot;
  }

  private start(slot: Slot, job: Job, cores: number): void {
    job.started = { at: performance.now(), cores };
    job.cores = cores;
    slot.job = job;
    const request = cores > 1 ? { ...job.request, cores } : job.request;
    slot.worker.postMessage({ type: "transcribe", jobId: job.id, spec: job.spec, request } satisfies ToWorker);
  }

  private onMessage(slot: Slot, msg: FromWorker): void {
    if (msg.type === "idle") return;
    const job = slot.job;
    if (!job || job.id !== msg.jobId) return; // an aborted job's late answer
    // Aborted while it was being suspended: the worker wakes it to stop, and its answer follows.
    if (msg.type === "suspended" && job.dropped) return;
    slot.job = undefined;
    this.count(job);
    job.suspending = false;
    if (msg.type === "suspended") {
      slot.parked.push(job);
      return this.drain(slot);
    }
    if (msg.type === "result") this.settle(job, undefined, msg.result);
    else this.settle(job, Object.assign(new Error(msg.error.message), { name: msg.error.name }));
    this.drain(slot);
  }

  private onCrash(slot: Slot, err: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0 || this.closed) return;
    if (slot.job) {
      this.count(slot.job);
      this.settle(slot.job, err);
    }
    for (const job of slot.parked.splice(0)) this.settle(job, err);
    slot.job = undefined;
    slot.worker.removeAllListeners();
    void slot.worker.terminate();
    const fresh = this.spawn();
    this.slots[index] = fresh;
    this.drain(fresh);
  }

  /** Adds a finished job's time on its worker to its engine's total. */
  private count(job: Job): void {
    if (job.pinned || !job.started) return;
    const seconds = ((performance.now() - job.started.at) / 1000) * job.started.cores;
    this.spent.set(job.spec.id, (this.spent.get(job.spec.id) ?? 0) + seconds);
  }

  private drain(slot: Slot): void {
    if (this.widenWhenIdle) return this.place();
    if (this.resumeOn(slot)) return;
    const next = this.takeFor(slot);
    if (next) this.start(slot, next, next.pinned?.cores ?? 1);
  }

  private abort(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) this.queue.splice(queued, 1);
    // A running job keeps its worker until it answers (its engine is asked to stop early); its
    // result is then dropped.
    const running = this.slots.find((s) => s.job === job);
    if (running) {
      running.job = { ...job, resolve: () => {}, reject: () => {}, signal: undefined, dropped: true };
      running.worker.postMessage({ type: "abort", jobId: job.id } satisfies ToWorker);
    }
    // A suspended one leaves its worker's parked jobs; the worker wakes it to stop (its answer is dropped).
    const parked = this.slots.find((s) => s.parked.includes(job));
    if (parked) {
      parked.parked.splice(parked.parked.indexOf(job), 1);
      parked.worker.postMessage({ type: "abort", jobId: job.id } satisfies ToWorker);
    }
    this.settle(job, abortError(job.signal!));
  }

  private settle(job: Job, err?: Error, result?: TranscribeResult): void {
    if (job.signal && job.onAbort) job.signal.removeEventListener("abort", job.onAbort);
    if (err) job.reject(err);
    else job.resolve(result!);
  }
}
