/** The options of the distributed-mode inference coordinator (`redis.ts`). */
import type { Logger } from "../../common/log.ts";

export interface RedisCoordinatorOptions {
  url: string;
  /** Names this gateway's reply stream (default: random). */
  gatewayId?: string;
  /** Redis key prefix shared with the workers (default `stt`). */
  prefix?: string;
  /** Longest wait for a result, Redis outages included (default 60000 ms). */
  jobTimeoutMs?: number;
  /** Longest wait for Redis to accept a new job before `NoCapacityError` (default 30000 ms). */
  outageWaitMs?: number;
  /** Jobs that may wait per model beyond the live workers' slots (default 16). */
  queueLimit?: number;
  /** Registry advertisements are re-read at most this often (default 500 ms). */
  registryRefreshMs?: number;
  /** Block time of the reply reader (default 1000 ms). */
  blockMs?: number;
  /** Approximate cap of a job stream's length (default 10000). */
  streamMaxLen?: number;
  log?: Logger;
  /** Called for each result or error that answers a pending call (tracing, per-worker accounting). */
  onReply?: (info: ReplyInfo) => void;
}

export interface ReplyInfo {
  key: string;
  model: string;
  /** Worker that answered. */
  worker: string;
  ok: boolean;
  /** Milliseconds from the call to the answer. */
  elapsedMs: number;
}
