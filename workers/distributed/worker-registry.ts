/**
 * Worker registry: each worker advertises what it serves and how much room it has in a Redis key
 * that expires unless a heartbeat refreshes it; gateways list the live advertisements. A worker
 * that stops refreshing disappears once its key expires.
 */
import type { ModelCapability, PublicModel } from "../contract/types.ts";
import type { RedisClient } from "../../common/redis/client.ts";
import type { RedisKeys } from "../../common/redis/keys.ts";

export interface WorkerAdvert {
  id: string;
  host: string;
  pid: number;
  startedAt: number;
  /** Catalogue entry ids of the engines this worker loads. */
  engines: string[];
  /** Public models it serves, with languages, add-ons, translation targets and profiles. */
  capabilities: ModelCapability[];
  /** Jobs it runs at once. */
  concurrency: number;
  /** Jobs running now. */
  busy: number;
  /** concurrency − busy, never below 0. */
  free: number;
  /** Lifetime of the advertisement; a gateway may keep it this long after losing sight of it. */
  ttlMs: number;
  /** Worker wall-clock time of this advertisement (ms). */
  updatedAt: number;
}

function isAdvert(value: unknown): value is WorkerAdvert {
  const a = value as WorkerAdvert;
  return !!a && typeof a.id === "string" && Array.isArray(a.capabilities) && typeof a.concurrency === "number";
}

export class WorkerRegistry {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** Publishes (or refreshes) an advertisement, expiring after `advert.ttlMs`. */
  async advertise(advert: WorkerAdvert): Promise<void> {
    await this.client
      .multi()
      .set(this.keys.worker(advert.id), JSON.stringify(advert), { expiration: { type: "PX", value: Math.max(1, Math.round(advert.ttlMs)) } })
      .sAdd(this.keys.workers, advert.id)
      .exec();
  }

  /** Withdraws a worker's advertisement at once (clean shutdown). */
  async remove(id: string): Promise<void> {
    await this.client.multi().del(this.keys.worker(id)).sRem(this.keys.workers, id).exec();
  }

  /** Live advertisements; ids whose key expired are pruned from the member set. */
  async list(): Promise<WorkerAdvert[]> {
    const ids = await this.client.sMembers(this.keys.workers);
    if (ids.length === 0) return [];
    const values = await this.client.mGet(ids.map((id) => this.keys.worker(id)));
    const live: WorkerAdvert[] = [];
    const gone: string[] = [];
    values.forEach((raw, i) => {
      if (raw === null) return void gone.push(ids[i]);
      try {
        const parsed = JSON.parse(raw);
        if (isAdvert(parsed)) live.push(parsed);
      } catch {
        // a malformed advertisement is ignored until it expires
      }
    });
    if (gone.length > 0) await this.client.sRem(this.keys.workers, gone);
    return live;
  }
}

function union<T extends string>(a: T[], b: T[]): T[] {
  return [...new Set([...a, ...b])];
}

/** Capabilities offered by a set of workers: per model, the union of what each worker serves. */
export function unionCapabilities(adverts: WorkerAdvert[]): ModelCapability[] {
  const byModel = new Map<PublicModel, ModelCapability>();
  for (const advert of adverts) {
    for (const cap of advert.capabilities) {
      const known = byModel.get(cap.model);
      if (!known) {
        byModel.set(cap.model, { ...cap, languages: [...cap.languages], features: [...cap.features], translationTargets: [...cap.translationTargets], profiles: [...cap.profiles] });
        continue;
      }
      known.languages = union(known.languages, cap.languages);
      known.features = union(known.features, cap.features);
      known.translationTargets = union(known.translationTargets, cap.translationTargets);
      known.profiles = union(known.profiles, cap.profiles);
    }
  }
  return [...byModel.values()].sort((a, b) => a.model.localeCompare(b.model));
}

export interface ModelCapacity {
  /** Live workers serving the model. */
  workers: number;
  /** Their summed concurrency. */
  capacity: number;
  /** Their summed free slots at their last heartbeat. */
  free: number;
}

/** Workers, slots and free slots for one model. */
export function capacityFor(adverts: WorkerAdvert[], model: string): ModelCapacity {
  const serving = adverts.filter((a) => a.capabilities.some((c) => c.model === model));
  return {
    workers: serving.length,
    capacity: serving.reduce((n, a) => n + a.concurrency, 0),
    free: serving.reduce((n, a) => n + a.free, 0),
  };
}
