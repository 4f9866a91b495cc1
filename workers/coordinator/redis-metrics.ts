/** Queue metrics of distributed mode (exported by server/metrics as Prometheus gauges and counters), and reading them. */
import { entryTime, type RedisClient } from "../../common/redis/client.ts";
import { WORKER_GROUP, type RedisKeys } from "../../common/redis/keys.ts";
import { capacityFor, type WorkerAdvert } from "../distributed/worker-registry.ts";

export interface ModelQueueMetrics {
  model: string;
  /** Jobs in the model's streams (every tier): waiting plus running (done jobs are deleted). */
  depth: number;
  /** Jobs not yet taken by any worker. */
  waiting: number;
  /** Jobs taken by a worker and not yet acknowledged. */
  inFlight: number;
  /** Age of the oldest job still in the model's streams (0 when empty), by Redis' clock. */
  oldestAgeMs: number;
  /** Live workers serving the model. */
  workers: number;
  /** Their summed concurrency. */
  capacity: number;
  /** Their free slots at their last heartbeat. */
  free: number;
}

export interface CoordinatorMetrics {
  gatewayId: string;
  /** Live workers in the registry. */
  workers: number;
  /** Calls of this gateway waiting for a result. */
  pendingCalls: number;
  /** Jobs dead-lettered since Redis started (all gateways). */
  deadLettered: number;
  /** Jobs this gateway re-sent after Redis lost them. */
  resent: number;
  /** Results this gateway ignored because the job was already answered. */
  duplicateResults: number;
  /** Jobs this gateway could not queue because the model's queue was full (callers may retry). */
  refused: number;
  models: ModelQueueMetrics[];
}

/** Each model's queue (by Redis' clock) and the jobs dead-lettered since Redis started, read now. */
export async function readQueues(
  client: RedisClient,
  keys: RedisKeys,
  models: readonly string[],
  adverts: WorkerAdvert[],
): Promise<{ perModel: ModelQueueMetrics[]; deadLettered: number }> {
  const [seconds, micros] = await client.time();
  const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  const perModel: ModelQueueMetrics[] = [];
  for (const model of models) {
    // The model's streams of every tier, summed; the oldest job of any.
    const streams = await Promise.all(
      keys.jobStreams(model).map(async (stream) => {
        const [depth, oldest, groups] = await Promise.all([
          client.xLen(stream),
          client.xRange(stream, "-", "+", { COUNT: 1 }),
          client.xInfoGroups(stream).catch(() => []),
        ]);
        const group = groups.find((g) => String(g.name) === WORKER_GROUP);
        return { depth, inFlight: Number(group?.pending ?? 0), oldestAgeMs: oldest?.[0] ? Math.max(0, now - entryTime(oldest[0].id)) : 0 };
      }),
    );
    const depth = streams.reduce((n, x) => n + x.depth, 0);
    const inFlight = streams.reduce((n, x) => n + x.inFlight, 0);
    const cap = capacityFor(adverts, model);
    perModel.push({
      model,
      depth,
      waiting: Math.max(0, depth - inFlight),
      inFlight,
      oldestAgeMs: Math.max(...streams.map((x) => x.oldestAgeMs)),
      ...cap,
    });
  }
  const deadLettered = Number((await client.get(keys.deadLetteredCount)) ?? 0);
  return { perModel, deadLettered };
}
