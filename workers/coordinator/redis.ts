/**
 * Distributed-mode inference coordinator (gateway side, `REDIS_URL` set).
 *
 * `transcribe` admits a job atomically (a Lua script compares the model's stream length with the
 * live workers' slots plus a queue bound, then XADDs), keeps it in memory with its payload, and
 * waits for the result on this gateway's own reply stream. Results are idempotent per
 * (sessionId, utteranceId, seq): concurrent calls for one key share one job and duplicate results
 * are ignored. When Redis comes back as a different server (its run_id changed: restarted without
 * persistence, or failed over), every pending job is re-sent. `capabilities()` is the union of the
 * live workers' advertisements.
 */
import { randomUUID } from "node:crypto";
import { canServe } from "../contract/can-serve.ts";
import type { TranscribeResult } from "../engines/types.ts";
import { decodeReply, encodeJob, jobKey, tierOf, validateJob } from "../contract/codec.ts";
import { InferenceFailedError, InferenceTimeoutError } from "../distributed/errors.ts";
import { GATEWAY_GROUP, RedisKeys } from "../../common/redis/keys.ts";
import { silentLogger, type Logger } from "../../common/log.ts";
import { withTimeout } from "../../common/timeout.ts";
import {
  connectRedis,
  dropClient,
  ensureGroup,
  errorMessage,
  isNoGroupError,
  readGroup,
  retryWhileDisconnected,
  sleep,
  type RedisClient,
} from "../../common/redis/client.ts";
import { capacityFor, unionCapabilities, WorkerRegistry, type WorkerAdvert } from "../distributed/worker-registry.ts";
import { readQueues, type CoordinatorMetrics } from "./redis-metrics.ts";
import type { RedisCoordinatorOptions, ReplyInfo } from "./redis-options.ts";
import { NoCapacityError, NoEndpointError, priorityOf, type InferenceCoordinator, type InferenceJob, type ModelCapability } from "../contract/types.ts";

export type { RedisCoordinatorOptions, ReplyInfo } from "./redis-options.ts";

/**
 * Admission: XADD to the job's stream (KEYS[1]) only while the streams in KEYS (the job's tier and
 * the more urgent ones: their waiting and running jobs) hold fewer jobs than the limit. Jobs of
 * less urgent tiers do not count: workers read them last, so partials and revisions waiting on a
 * busy model never get a final refused.
 */
const ADMIT_SCRIPT = `
local depth = 0
for _, key in ipairs(KEYS) do depth = depth + redis.call('XLEN', key) end
if depth >= tonumber(ARGV[1]) then return {0, depth} end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'meta', ARGV[3], 'audio', ARGV[4])
return {1, id}
`;

/** How long a withdrawn job's mark is kept for a worker that read the job before it was withdrawn. */
const WITHDRAWN_TTL_MS = 120_000;

interface PendingJob {
  key: string;
  model: string;
  stream: string;
  fields: { meta: string; audio: Buffer };
  startedAt: number;
  entryId?: string;
  submitted: boolean;
  callers: number;
  settled: boolean;
  promise: Promise<TranscribeResult>;
  resolve: (r: TranscribeResult) => void;
  reject: (e: Error) => void;
  timer?: ReturnType<typeof setTimeout>;
}

interface SnapshotEntry {
  advert: WorkerAdvert;
  until: number;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("the job was aborted", "AbortError");
}

export class RedisCoordinator implements InferenceCoordinator {
  readonly gatewayId: string;
  private readonly keys: RedisKeys;
  private readonly replyStream: string;
  private readonly jobTimeoutMs: number;
  private readonly outageWaitMs: number;
  private readonly queueLimit: number;
  private readonly registryRefreshMs: number;
  private readonly blockMs: number;
  private readonly streamMaxLen: number;
  private readonly log: Logger;
  private readonly onReplyHook?: (info: ReplyInfo) => void;
  private readonly pending = new Map<string, PendingJob>();
  private snapshot = new Map<string, SnapshotEntry>();
  private lastRefresh = 0;
  private refreshing?: Promise<void>;
  private registryReachable = true;
  private graceUntil = 0;
  private runId = "";
  private closed = false;
  private readLoopDone?: Promise<void>;
  private counters = { resent: 0, duplicateResults: 0, refused: 0 };
  private client!: RedisClient;
  private reader!: RedisClient;
  private registry!: WorkerRegistry;

  private constructor(opts: RedisCoordinatorOptions) {
    this.gatewayId = opts.gatewayId || randomUUID();
    this.keys = new RedisKeys(opts.prefix);
    this.replyStream = this.keys.replies(this.gatewayId);
    this.jobTimeoutMs = opts.jobTimeoutMs ?? 60_000;
    this.outageWaitMs = opts.outageWaitMs ?? 30_000;
    this.queueLimit = Math.max(0, opts.queueLimit ?? 16);
    this.registryRefreshMs = opts.registryRefreshMs ?? 500;
    this.blockMs = opts.blockMs ?? 1000;
    this.streamMaxLen = opts.streamMaxLen ?? 10_000;
    this.log = opts.log ?? silentLogger;
    this.onReplyHook = opts.onReply;
  }

  /** Connects to Redis, creates this gateway's reply stream and starts reading results. */
  static async create(opts: RedisCoordinatorOptions): Promise<RedisCoordinator> {
    const coordinator = new RedisCoordinator(opts);
    await coordinator.connect(opts.url);
    return coordinator;
  }

  private async connect(url: string): Promise<void> {
    const onError = (err: Error) => this.log.warn("redis connection error", { gateway: this.gatewayId, error: err.message });
    this.client = await connectRedis({ url, name: `gateway:${this.gatewayId}`, onError });
    this.reader = await connectRedis({ url, name: `gateway-reader:${this.gatewayId}`, onError });
    this.registry = new WorkerRegistry(this.client, this.keys);
    this.runId = await this.serverRunId();
    await ensureGroup(this.client, this.replyStream, GATEWAY_GROUP);
    this.client.on("ready", () => void this.onReconnect());
    this.readLoopDone = this.readLoop();
  }

  async capabilities(): Promise<ModelCapability[]> {
    return unionCapabilities(await this.liveWorkers());
  }

  async transcribe(job: InferenceJob, signal?: AbortSignal): Promise<TranscribeResult> {
    if (this.closed) throw new Error("inference coordinator is closed");
    validateJob(job);
    if (signal?.aborted) throw abortError(signal);
    const key = jobKey(job);
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.track(job, key);
      void this.submit(pending, job);
    }
    return this.follow(pending, signal);
  }

  /** Live workers, queue depth per model, dead-letter count and this gateway's counters. */
  async metrics(): Promise<CoordinatorMetrics> {
    const adverts = await this.liveWorkers();
    const models = new Set<string>([...unionCapabilities(adverts).map((c) => c.model), ...[...this.pending.values()].map((p) => p.model)]);
    const { perModel, deadLettered } = await readQueues(this.client, this.keys, [...models].sort(), adverts);
    return {
      gatewayId: this.gatewayId,
      workers: adverts.length,
      pendingCalls: this.pending.size,
      deadLettered,
      resent: this.counters.resent,
      duplicateResults: this.counters.duplicateResults,
      refused: this.counters.refused,
      models: perModel,
    };
  }

  /** Rejects pending calls, stops reading results, removes the reply stream and disconnects. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const p of [...this.pending.values()]) this.settle(p, new Error("inference coordinator is closed"));
    dropClient(this.reader);
    await this.readLoopDone?.catch(() => {});
    await withTimeout(this.client.del(this.replyStream), 1000, () => new Error("timeout")).catch(() => {});
    dropClient(this.client);
  }

  // ---- jobs ----

  private track(job: InferenceJob, key: string): PendingJob {
    let resolve!: (r: TranscribeResult) => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<TranscribeResult>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => {}); // callers observe it through follow()
    const p: PendingJob = {
      key,
      model: job.model,
      stream: this.keys.jobs(job.model, tierOf(priorityOf(job))),
      fields: encodeJob(job, this.replyStream, Date.now()),
      startedAt: Date.now(),
      submitted: false,
      callers: 0,
      settled: false,
      promise,
      resolve,
      reject,
    };
    p.timer = setTimeout(
      () => this.settle(p, new InferenceTimeoutError(`no inference result within ${this.jobTimeoutMs} ms`)),
      this.jobTimeoutMs,
    );
    this.pending.set(key, p);
    return p;
  }

  /** Checks the registry, then admits and queues the job; rejects the pending job on refusal. */
  private async submit(p: PendingJob, job: InferenceJob): Promise<void> {
    try {
      const adverts = await this.liveWorkers();
      const { languages, task, targetLanguage } = job.request;
      const verdict = canServe(unionCapabilities(adverts), {
        model: job.model,
        languages,
        translationTargets: task === "translate" && targetLanguage ? [targetLanguage] : undefined,
      });
      if (!verdict.ok) throw new NoEndpointError(`no inference endpoint available: ${verdict.reason}`);
      const { capacity } = capacityFor(adverts, job.model);
      const limit = capacity + this.queueLimit;
      const admit = () =>
        this.client.eval(ADMIT_SCRIPT, {
          keys: [p.stream, ...this.keys.jobStreamsUpTo(p.model, tierOf(priorityOf(job))).filter((k) => k !== p.stream)],
          arguments: [String(limit), String(this.streamMaxLen), p.fields.meta, p.fields.audio],
        }) as Promise<[number, string | number]>;
      const [ok, value] = await withTimeout(
        retryWhileDisconnected(admit, this.outageWaitMs, () => p.settled),
        this.outageWaitMs,
        () => new NoCapacityError(`inference queue unreachable: Redis did not answer within ${this.outageWaitMs} ms`),
      );
      if (!ok) this.counters.refused++;
      if (!ok) throw new NoCapacityError(`no free inference capacity for model ${job.model}: ${value} jobs queued or running (limit ${limit})`);
      p.entryId = String(value);
      p.submitted = true;
      if (p.settled) this.forget(p);
    } catch (err) {
      this.settle(p, err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** One caller's view of a pending job: its own abort signal; the job is dropped when no caller is left. */
  private follow(p: PendingJob, signal?: AbortSignal): Promise<TranscribeResult> {
    p.callers++;
    if (!signal) return p.promise;
    return new Promise<TranscribeResult>((resolve, reject) => {
      const onAbort = () => {
        reject(abortError(signal));
        if (--p.callers === 0) this.settle(p, abortError(signal));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      p.promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  private settle(p: PendingJob, err?: Error, result?: TranscribeResult): void {
    if (p.settled) return;
    p.settled = true;
    clearTimeout(p.timer);
    this.pending.delete(p.key);
    if (err) {
      p.reject(err);
      if (p.submitted) this.forget(p);
    } else p.resolve(result!);
  }

  /**
   * Withdraws an abandoned job (best effort): removed from its stream so no worker takes it, marked
   * withdrawn for a worker that has read it but not started it, and announced to the worker running
   * it, whose engine stops before its next ONNX call.
   */
  private forget(p: PendingJob): void {
    if (!p.entryId || this.closed) return;
    void this.client
      .multi()
      .xDel(p.stream, p.entryId)
      .set(this.keys.withdrawnJob(p.key), "1", { expiration: { type: "PX", value: WITHDRAWN_TTL_MS } })
      .publish(this.keys.withdrawn, p.key)
      .exec()
      .catch(() => {});
  }

  private async readLoop(): Promise<void> {
    while (!this.closed) {
      try {
        const entries = await readGroup(this.reader, GATEWAY_GROUP, this.gatewayId, [this.replyStream], 100, this.blockMs);
        for (const entry of entries) this.onReply(entry.fields);
        if (entries.length > 0) {
          const ids = entries.map((e) => e.id);
          void this.client.multi().xAck(this.replyStream, GATEWAY_GROUP, ids).xDel(this.replyStream, ids).exec().catch(() => {});
        }
      } catch (err) {
        if (this.closed) break;
        if (isNoGroupError(err)) await ensureGroup(this.client, this.replyStream, GATEWAY_GROUP).catch(() => {});
        else await sleep(100);
      }
    }
  }

  private onReply(fields: Record<string, Buffer>): void {
    let reply;
    try {
      reply = decodeReply(fields);
    } catch (err) {
      this.log.warn("malformed inference reply ignored", { gateway: this.gatewayId, error: errorMessage(err) });
      return;
    }
    const p = this.pending.get(reply.key);
    if (!p) {
      this.counters.duplicateResults++;
      return;
    }
    const ok = !("error" in reply);
    if ("error" in reply) this.settle(p, new InferenceFailedError(reply.error));
    else this.settle(p, undefined, reply.result);
    try {
      this.onReplyHook?.({ key: p.key, model: p.model, worker: reply.worker, ok, elapsedMs: Date.now() - p.startedAt });
    } catch {
      // a faulty hook must not break result delivery
    }
  }

  // ---- Redis restarts ----

  private async serverRunId(): Promise<string> {
    const info = await this.client.info("server");
    return /run_id:(\w+)/.exec(info)?.[1] ?? "";
  }

  /** After a reconnection: if Redis is a different server now, re-send every pending job. */
  private async onReconnect(): Promise<void> {
    if (this.closed) return;
    try {
      const runId = await this.serverRunId();
      if (runId === this.runId) return;
      this.graceUntil = Date.now() + Math.max(5000, ...[...this.snapshot.values()].map((e) => e.advert.ttlMs));
      // (A restarted Redis answers LOADING while it reads its data back: waited out.)
      await retryWhileDisconnected(() => ensureGroup(this.client, this.replyStream, GATEWAY_GROUP), this.outageWaitMs, () => this.closed);
      this.runId = runId;
      const jobs = [...this.pending.values()].filter((p) => p.submitted && !p.settled);
      this.log.warn("redis restarted; re-sending pending jobs", { gateway: this.gatewayId, jobs: jobs.length });
      for (const p of jobs) {
        const id = await retryWhileDisconnected(
          () =>
            this.client.xAdd(p.stream, "*", p.fields, {
              TRIM: { strategy: "MAXLEN", strategyModifier: "~", threshold: this.streamMaxLen },
            }),
          this.outageWaitMs,
          () => p.settled || this.closed,
        );
        p.entryId = id;
        this.counters.resent++;
      }
    } catch (err) {
      this.log.warn("re-sending pending jobs failed", { gateway: this.gatewayId, error: errorMessage(err) });
    }
  }

  // ---- registry ----

  /**
   * Live workers' advertisements, re-read at most every `registryRefreshMs`. While Redis cannot be
   * read, the last known workers are kept (calls then wait for Redis rather than fail); right after
   * a Redis restart, workers not yet re-advertised are kept until their advertisement would expire.
   */
  private async liveWorkers(): Promise<WorkerAdvert[]> {
    if (Date.now() - this.lastRefresh >= this.registryRefreshMs) {
      this.refreshing ??= this.refreshRegistry().finally(() => (this.refreshing = undefined));
      await this.refreshing;
    }
    const now = Date.now();
    return [...this.snapshot.values()].filter((e) => !this.registryReachable || e.until > now).map((e) => e.advert);
  }

  private async refreshRegistry(): Promise<void> {
    try {
      const list = await withTimeout(this.registry.list(), Math.max(1000, this.registryRefreshMs), () => new Error("registry read timed out"));
      const now = Date.now();
      const next = new Map<string, SnapshotEntry>();
      for (const advert of list) next.set(advert.id, { advert, until: now + advert.ttlMs });
      if (now < this.graceUntil) {
        for (const [id, e] of this.snapshot) if (!next.has(id) && e.until > now) next.set(id, e);
      }
      this.snapshot = next;
      this.registryReachable = true;
      this.lastRefresh = now;
    } catch (err) {
      if (!this.registryReachable) return;
      this.registryReachable = false;
      this.log.warn("worker registry unreadable; keeping the last known workers", { gateway: this.gatewayId, error: errorMessage(err) });
    }
  }
}
