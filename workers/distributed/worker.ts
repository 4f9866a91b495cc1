/**
 * Distributed-mode inference worker: reads jobs of the models it serves from Redis Streams
 * (consumer group `workers`), runs them on an `EnginePool`, answers on each job's reply stream
 * and acknowledges. It advertises itself in the worker registry with a heartbeat, takes over jobs
 * left idle by dead workers (XAUTOCLAIM) and dead-letters jobs delivered too often. A job its
 * gateway withdrew (announced on the `withdrawn` channel, and marked for a while) is stopped:
 * not started when marked, its engine told to stop before the next ONNX call when running; it is
 * acknowledged without an answer and not retried.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { computeCapabilities, servingEntries } from "../catalogue/capabilities.ts";
import type { ModelCapability } from "../contract/types.ts";
import type { TranscribeResult } from "../engines/types.ts";
import { EnginePool } from "../pool/pool.ts";
import type { EngineSpec } from "../pool/protocol.ts";
import { WorkerRegistry, type WorkerAdvert } from "./worker-registry.ts";
import { decodeJob, decodeJobMeta, encodeReply, type ReplyMessage } from "../contract/codec.ts";
import { JOB_TIERS, RedisKeys, WORKER_GROUP } from "../../common/redis/keys.ts";
import { silentLogger, type Logger } from "../../common/log.ts";
import {
  autoClaim,
  connectRedis,
  dropClient,
  ensureGroup,
  errorMessage,
  isNoGroupError,
  readGroup,
  retryWhileDisconnected,
  sleep,
  type RedisClient,
  type StreamEntry,
} from "../../common/redis/client.ts";
import { ResultCache } from "./result-cache.ts";
import { workerSettings, type InferenceWorkerOptions, type WorkerSettings } from "./worker-settings.ts";

export type { InferenceWorkerOptions } from "./worker-settings.ts";

const REPLY_MAXLEN = 1000;
const REPLY_TTL_MS = 600_000;
const DEADLETTER_MAXLEN = 10_000;
const FAILURE_TTL_MS = 600_000;

export class InferenceWorker {
  readonly id: string;
  private readonly keys: RedisKeys;
  private readonly s: WorkerSettings;
  private readonly log: Logger;
  private readonly cache: ResultCache;
  private readonly startedAt = Date.now();
  private readonly inFlight = new Map<string, string>(); // entry id → stream
  /** Job key → what stops it, for the jobs this worker is processing. */
  private readonly stoppers = new Map<string, AbortController>();
  private readonly slotWaiters: Array<() => void> = [];
  private specs = new Map<string, EngineSpec>(); // public model → engine
  private caps: ModelCapability[] = [];
  private running = false;
  private busyCount = 0;
  private heartbeatTimer?: ReturnType<typeof setInterval>;
  private claimTimer?: ReturnType<typeof setInterval>;
  private claiming = false;
  private readLoopDone?: Promise<void>;
  private registry!: WorkerRegistry;
  private client!: RedisClient;
  private reader!: RedisClient;
  private subscriber!: RedisClient;
  private pool!: EnginePool;
  /** Jobs completed, failed, dead-lettered and withdrawn (stopped for their gateway) by this worker. */
  readonly stats = { completed: 0, failed: 0, deadLettered: 0, cacheHits: 0, withdrawn: 0 };

  private constructor(opts: InferenceWorkerOptions) {
    this.id = opts.workerId || `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.keys = new RedisKeys(opts.prefix);
    this.s = workerSettings(opts);
    this.cache = new ResultCache(opts.resultCacheSize ?? 512);
    this.log = opts.log ?? silentLogger;
  }

  /** Connects, creates the consumer groups, advertises the worker and starts taking jobs. */
  static async start(opts: InferenceWorkerOptions): Promise<InferenceWorker> {
    const worker = new InferenceWorker(opts);
    await worker.begin(opts.url);
    return worker;
  }

  /** Jobs running now. */
  get busy(): number {
    return this.busyCount;
  }

  /** Public models this worker serves (from MODELS_DIR, re-read at each heartbeat). */
  get models(): string[] {
    return [...this.specs.keys()];
  }

  private async begin(url: string): Promise<void> {
    const onError = (err: Error) => this.log.warn("redis connection error", { worker: this.id, error: err.message });
    this.client = await connectRedis({ url, name: `worker:${this.id}`, onError });
    this.reader = await connectRedis({ url, name: `worker-reader:${this.id}`, onError });
    this.subscriber = await connectRedis({ url, name: `worker-sub:${this.id}`, onError });
    await this.subscriber.subscribe(this.keys.withdrawn, (key) => this.stoppers.get(key)?.abort(new DOMException("the job was withdrawn", "AbortError")));
    this.registry = new WorkerRegistry(this.client, this.keys);
    this.refreshModels();
    this.pool = new EnginePool({ threads: this.s.concurrency, queueLimit: 1024 });
    await this.ensureGroups();
    this.running = true;
    await this.heartbeat();
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.s.heartbeatMs);
    this.claimTimer = setInterval(() => void this.claimIdle(), this.s.claimIntervalMs);
    this.readLoopDone = this.readLoop();
    this.log.info("worker ready", { worker: this.id, models: this.models, concurrency: this.s.concurrency });
  }

  /**
   * Stops taking jobs, lets running ones finish (up to `drainMs`), withdraws the advertisement and
   * disconnects. Jobs not finished stay pending in Redis for other workers to take over.
   */
  async stop(drainMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.heartbeatTimer);
    clearInterval(this.claimTimer);
    for (const wake of this.slotWaiters.splice(0)) wake();
    const deadline = Date.now() + drainMs;
    while (this.busyCount > 0 && Date.now() < deadline) await sleep(20);
    await this.registry.remove(this.id).catch(() => {});
    dropClient(this.reader);
    dropClient(this.subscriber);
    await this.readLoopDone?.catch(() => {});
    await this.pool.close();
    dropClient(this.client);
    this.log.info("worker stopped", { worker: this.id, ...this.stats });
  }

  /** Every job stream of the models served, most urgent tier first. */
  private streams(): string[] {
    return JOB_TIERS.flatMap((t) => this.models.map((m) => this.keys.jobs(m, t)));
  }

  /**
   * Jobs for `free` slots, the most urgent first: what the streams hold now, stream by stream in
   * `streams()` order, up to `free` in all; when every stream is empty, the first jobs to arrive in
   * any (one per stream at most: jobs arriving in several streams at once may exceed `free`, and
   * the pool runs the surplus in priority order). A worker reading one stream in arrival order
   * would keep a final waiting behind every partial queued before it.
   */
  private async readJobs(free: number): Promise<StreamEntry[]> {
    const out: StreamEntry[] = [];
    for (const stream of this.streams()) {
      if (out.length >= free) return out;
      out.push(...(await readGroup(this.reader, WORKER_GROUP, this.id, [stream], free - out.length, null)));
    }
    if (out.length > 0) return out;
    return readGroup(this.reader, WORKER_GROUP, this.id, this.streams(), 1, this.s.blockMs);
  }

  /** Re-reads MODELS_DIR: which public models this worker serves, with which engine. */
  private refreshModels(): void {
    const specs = new Map<string, EngineSpec>();
    for (const { model, entry } of servingEntries(this.s.modelsDir)) {
      specs.set(model.model, {
        id: entry.id,
        family: entry.family as EngineSpec["family"],
        dir: resolve(this.s.modelsDir, entry.dir),
        options: entry.options,
        threads: this.s.sessionThreads,
      });
    }
    this.specs = specs;
    this.caps = computeCapabilities(this.s.modelsDir);
  }

  private async ensureGroups(): Promise<void> {
    for (const stream of this.streams()) await ensureGroup(this.client, stream, WORKER_GROUP);
  }

  private advert(): WorkerAdvert {
    return {
      id: this.id,
      host: hostname(),
      pid: process.pid,
      startedAt: this.startedAt,
      engines: [...new Set([...this.specs.values()].map((s) => s.id))],
      capabilities: this.caps,
      concurrency: this.s.concurrency,
      busy: this.busyCount,
      free: Math.max(0, this.s.concurrency - this.busyCount),
      ttlMs: this.s.ttlMs,
      updatedAt: Date.now(),
    };
  }

  /** Refreshes the advertisement and keeps this worker's running jobs from looking idle. */
  private async heartbeat(): Promise<void> {
    if (!this.running) return;
    try {
      const before = this.streams().join();
      this.refreshModels();
      if (this.streams().join() !== before) await this.ensureGroups();
      await this.registry.advertise(this.advert());
      const byStream = new Map<string, string[]>();
      for (const [id, stream] of this.inFlight) byStream.set(stream, [...(byStream.get(stream) ?? []), id]);
      for (const [stream, ids] of byStream) {
        await this.client.xClaimJustId(stream, WORKER_GROUP, this.id, 0, ids).catch(() => {});
      }
    } catch (err) {
      this.log.warn("heartbeat failed", { worker: this.id, error: errorMessage(err) });
    }
  }

  private async waitForSlot(): Promise<void> {
    while (this.running && this.busyCount >= this.s.concurrency) {
      await new Promise<void>((r) => this.slotWaiters.push(r));
    }
  }

  private releaseSlot(): void {
    this.busyCount--;
    this.slotWaiters.shift()?.();
  }

  private async readLoop(): Promise<void> {
    while (this.running) {
      await this.waitForSlot();
      if (!this.running) break;
      const streams = this.streams();
      if (streams.length === 0) {
        await sleep(this.s.blockMs);
        continue;
      }
      try {
        const free = this.s.concurrency - this.busyCount;
        const entries = await this.readJobs(free);
        for (const entry of entries) void this.process(entry);
      } catch (err) {
        if (!this.running) break;
        if (isNoGroupError(err)) {
          await this.ensureGroups().catch(() => {});
        } else {
          this.log.warn("reading jobs failed", { worker: this.id, error: errorMessage(err) });
          await sleep(200);
        }
      }
    }
  }

  /** Takes over jobs idle longer than claimIdleMs (their worker died or failed them). */
  private async claimIdle(): Promise<void> {
    if (!this.running || this.claiming) return;
    this.claiming = true;
    try {
      for (const stream of this.streams()) {
        const free = this.s.concurrency - this.busyCount;
        if (free <= 0) break;
        const { entries } = await autoClaim(this.client, stream, WORKER_GROUP, this.id, this.s.claimIdleMs, free);
        for (const entry of entries) {
          const [pending] = await this.client.xPendingRange(stream, WORKER_GROUP, entry.id, entry.id, 1);
          const deliveries = pending?.deliveriesCounter ?? 1;
          if (deliveries > this.s.maxDeliveries) void this.deadLetter(entry, deliveries - 1);
          else {
            this.log.info("took over idle job", { worker: this.id, stream, entry: entry.id, deliveries });
            void this.process(entry);
          }
        }
      }
    } catch (err) {
      if (isNoGroupError(err)) await this.ensureGroups().catch(() => {});
      else this.log.warn("claiming idle jobs failed", { worker: this.id, error: errorMessage(err) });
    } finally {
      this.claiming = false;
    }
  }

  /** Runs one job and answers it; on failure leaves it pending so it is retried or dead-lettered. */
  private async process(entry: StreamEntry): Promise<void> {
    this.busyCount++;
    this.inFlight.set(entry.id, entry.stream);
    let stopper: AbortController | undefined;
    let key: string | undefined;
    try {
      let decoded;
      try {
        decoded = decodeJob(entry.fields);
      } catch (err) {
        await this.deadLetter(entry, 1, `malformed job: ${errorMessage(err)}`);
        return;
      }
      const { meta, job } = decoded;
      // Listening for the withdrawal before looking for its mark: none is missed in between.
      stopper = new AbortController();
      key = meta.key;
      this.stoppers.set(key, stopper);
      if (this.s.jobDelayMs > 0) await sleep(this.s.jobDelayMs);
      if (stopper.signal.aborted || (await this.client.exists(this.keys.withdrawnJob(key)).catch(() => 0)) > 0) {
        await this.dropWithdrawn(entry, key, false);
        return;
      }
      let result: TranscribeResult | undefined = this.cache.get(meta.key);
      if (result) this.stats.cacheHits++;
      else {
        const spec = this.specs.get(job.model);
        if (!spec) throw new Error(`worker ${this.id} does not serve model ${job.model}`);
        try {
          this.log.debug("job started", { worker: this.id, key });
          result = await this.pool.run(spec, job.request, stopper.signal, job.priority);
        } catch (err) {
          if (!stopper.signal.aborted) throw err;
          await this.dropWithdrawn(entry, key, true);
          return;
        }
        this.cache.set(meta.key, result);
      }
      await this.answer(meta.reply, { key: meta.key, worker: this.id, result });
      await this.acknowledge(entry);
      this.stats.completed++;
    } catch (err) {
      this.stats.failed++;
      const message = errorMessage(err);
      this.log.warn("job failed", { worker: this.id, stream: entry.stream, entry: entry.id, error: message });
      // Keep the reason for a dead letter, and make the job look idle so it is retried after retryDelayMs
      // rather than after the full claim idle time (JUSTID leaves the delivery counter alone).
      await this.client
        .multi()
        .set(this.keys.failure(entry.stream, entry.id), message, { expiration: { type: "PX", value: FAILURE_TTL_MS } })
        .xClaimJustId(entry.stream, WORKER_GROUP, this.id, 0, entry.id, { IDLE: this.s.claimIdleMs - this.s.retryDelayMs })
        .exec()
        .catch(() => {});
    } finally {
      if (key !== undefined && this.stoppers.get(key) === stopper) this.stoppers.delete(key);
      this.inFlight.delete(entry.id);
      this.releaseSlot();
    }
  }

  /** A job its gateway withdrew: acknowledged (it leaves the stream) without an answer. */
  private async dropWithdrawn(entry: StreamEntry, key: string, running: boolean): Promise<void> {
    await this.acknowledge(entry);
    this.stats.withdrawn++;
    this.log.info("withdrawn job stopped", { worker: this.id, key, entry: entry.id, running });
  }

  /** Sends a result or error to a gateway's reply stream, waiting out a Redis outage. */
  private async answer(replyStream: string, reply: ReplyMessage): Promise<void> {
    await retryWhileDisconnected(
      () =>
        this.client
          .multi()
          .xAdd(replyStream, "*", encodeReply(reply), { TRIM: { strategy: "MAXLEN", strategyModifier: "~", threshold: REPLY_MAXLEN } })
          .pExpire(replyStream, REPLY_TTL_MS)
          .exec(),
      this.s.outageWaitMs,
    );
  }

  /** XACK + XDEL: the stream only ever holds jobs not yet done. A lost group (Redis restart) is ignored. */
  private async acknowledge(entry: StreamEntry): Promise<void> {
    try {
      await retryWhileDisconnected(
        () => this.client.multi().xAck(entry.stream, WORKER_GROUP, entry.id).xDel(entry.stream, entry.id).exec(),
        this.s.outageWaitMs,
      );
    } catch (err) {
      if (!isNoGroupError(err)) this.log.warn("acknowledging a job failed", { worker: this.id, entry: entry.id, error: errorMessage(err) });
    }
  }

  /** Moves a job to the dead-letter stream and tells its gateway it was given up. */
  private async deadLetter(entry: StreamEntry, attempts: number, reason?: string): Promise<void> {
    const failureKey = this.keys.failure(entry.stream, entry.id);
    const lastError = reason ?? (await this.client.get(failureKey).catch(() => null)) ?? "worker lost while running it";
    const fields: Record<string, Buffer | string> = {
      ...entry.fields,
      source: entry.stream,
      entry: entry.id,
      attempts: String(attempts),
      reason: lastError,
      worker: this.id,
    };
    try {
      // One transaction: the job leaves its stream exactly when it enters the dead-letter stream.
      await this.client
        .multi()
        .xAdd(this.keys.deadLetter, "*", fields, { TRIM: { strategy: "MAXLEN", strategyModifier: "~", threshold: DEADLETTER_MAXLEN } })
        .xAck(entry.stream, WORKER_GROUP, entry.id)
        .xDel(entry.stream, entry.id)
        .incr(this.keys.deadLetteredCount)
        .del(failureKey)
        .exec();
      this.stats.deadLettered++;
      this.log.warn("job dead-lettered", { worker: this.id, stream: entry.stream, entry: entry.id, attempts, reason: lastError });
      let meta;
      try {
        meta = decodeJobMeta(entry.fields.meta);
      } catch {
        meta = undefined; // nobody to tell
      }
      if (meta) {
        const error = `inference failed after ${attempts} attempt(s), job dead-lettered: ${lastError}`;
        await this.answer(meta.reply, { key: meta.key, worker: this.id, error });
      }
    } catch (err) {
      this.log.error("dead-lettering failed", { worker: this.id, entry: entry.id, error: errorMessage(err) });
    }
  }
}
