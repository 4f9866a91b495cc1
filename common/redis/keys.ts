/**
 * Redis key layout of distributed mode, shared by the store, the session directory, the coordinator
 * and the workers. Every key starts with a prefix (default `stt`) so several deployments, or tests,
 * can share one Redis.
 *
 *   {p}:jobs:{model}        stream of urgent jobs (finals, speculative finals) for one public model
 *                           (consumer group `workers`); `…:partial` and `…:background` hold its
 *                           partial and background decodes: workers read the urgent stream first
 *   {p}:replies:{gateway}   stream of results for one gateway (consumer group `gateway`)
 *   {p}:deadletter          stream of jobs given up after too many deliveries
 *   {p}:workers             set of registered worker ids
 *   {p}:worker:{id}         a worker's advertisement (JSON, expires unless refreshed)
 *   {p}:failure:{entry}     last error of a job entry (kept a short while, for dead-letter reasons)
 *   {p}:stats:deadlettered  counter of dead-lettered jobs
 *   {p}:withdrawn           pub/sub channel: job keys their gateway no longer wants (workers stop them)
 *   {p}:withdrawn:{key}     the same, kept a short while for a worker that has read the job but not started it
 *   {p}:owner:{session}     the gateway holding a live session (lease)
 *   {p}:gateway:{id}:handover  pub/sub channel of hand-over requests to one gateway
 *   {p}:store:…             the store's accounts, keys and sessions (server/store/redis.ts)
 */
export const DEFAULT_PREFIX = "stt";
export const WORKER_GROUP = "workers";
export const GATEWAY_GROUP = "gateway";

/** A model's job streams, most urgent first (see `RedisKeys.jobs`). */
export const JOB_TIERS = ["urgent", "partial", "background"] as const;
export type JobTier = (typeof JOB_TIERS)[number];

export class RedisKeys {
  constructor(readonly prefix: string = DEFAULT_PREFIX) {
    if (!/^[\w.-]+$/.test(prefix)) throw new Error(`invalid Redis key prefix "${prefix}": use letters, digits, '_', '.', '-'`);
  }

  /** The stream of one model's jobs of one tier (the urgent one keeps the name of the single stream of earlier versions). */
  jobs(model: string, tier: JobTier = "urgent"): string {
    return tier === "urgent" ? `${this.prefix}:jobs:${model}` : `${this.prefix}:jobs:${model}:${tier}`;
  }

  /** Every job stream of one model, most urgent first. */
  jobStreams(model: string): string[] {
    return JOB_TIERS.map((t) => this.jobs(model, t));
  }

  /** The job streams of one model that a job of `tier` queues behind: its own tier and the more urgent ones. */
  jobStreamsUpTo(model: string, tier: JobTier): string[] {
    return JOB_TIERS.slice(0, JOB_TIERS.indexOf(tier) + 1).map((t) => this.jobs(model, t));
  }

  replies(gatewayId: string): string {
    return `${this.prefix}:replies:${gatewayId}`;
  }

  get deadLetter(): string {
    return `${this.prefix}:deadletter`;
  }

  get workers(): string {
    return `${this.prefix}:workers`;
  }

  worker(id: string): string {
    return `${this.prefix}:worker:${id}`;
  }

  failure(stream: string, entryId: string): string {
    return `${this.prefix}:failure:${stream}:${entryId}`;
  }

  /** Pub/sub channel of withdrawn job keys. */
  get withdrawn(): string {
    return `${this.prefix}:withdrawn`;
  }

  /** Marks job `key` withdrawn (checked before a worker starts it). */
  withdrawnJob(key: string): string {
    return `${this.prefix}:withdrawn:${key}`;
  }

  get deadLetteredCount(): string {
    return `${this.prefix}:stats:deadlettered`;
  }

  owner(sessionId: string): string {
    return `${this.prefix}:owner:${sessionId}`;
  }

  handover(gatewayId: string): string {
    return `${this.prefix}:gateway:${gatewayId}:handover`;
  }

  /** Start of every key of the store. */
  get store(): string {
    return `${this.prefix}:store:`;
  }
}
