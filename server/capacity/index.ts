/**
 * Admission's assembly, for the composition root: the stream costs (the catalogue's figures,
 * refined every `refineMs` from the engine time measured), the limit (engine threads × headroom)
 * and the sessions counted against it. Embedded mode only: in distributed mode the workers are
 * shared by every gateway, whose sessions one gateway does not see, so `threads` is null and every
 * session is admitted (the Redis queue still refuses jobs past the workers' room).
 */
import { streamCostOf } from "../../workers/public.ts";
import type { ModelCapability } from "../../workers/contract/types.ts";
import type { SessionRecord } from "../store/types.ts";
import { Admission } from "./admission.ts";
import { StreamCosts } from "./estimates.ts";
import { costMeter } from "./refine.ts";
import { streamedSeconds } from "./streamed.ts";

export { Admission, type CapacitySnapshot, type Seat } from "./admission.ts";

export interface CapacityOptions {
  /** Engine threads of the embedded pool; null: not known to this gateway (distributed). */
  threads: number | null;
  /** `CAPACITY_HEADROOM`: 0 = no limit. */
  headroom: number;
  /** Interval of the refinement (ms); 0 = the catalogue's figures only. */
  refineMs: number;
  /** The pool's engine-seconds per engine; absent: no refinement. */
  engineSeconds?: () => ReadonlyMap<string, number>;
  capabilities(): Promise<ModelCapability[]>;
  held(): Iterable<{ id: string; model: string }>;
  lookup(id: string): Promise<SessionRecord | null>;
  now(): number;
}

export function startCapacity(opts: CapacityOptions): { admission: Admission; stop(): void } {
  const costs = new StreamCosts(streamCostOf);
  const limit = opts.threads === null ? 0 : opts.threads * opts.headroom;
  const admission = new Admission({ limit, costs, held: opts.held, lookup: opts.lookup, now: opts.now });
  const engineSeconds = opts.engineSeconds;
  if (!admission.limited || !engineSeconds || opts.refineMs <= 0) return { admission, stop: () => {} };
  const measure = costMeter(costs, { engineSeconds, streamedSeconds, engineOf: (m) => admission.engineOf(m) });
  const timer = setInterval(() => {
    opts
      .capabilities()
      .then((caps) => admission.learn(caps))
      .catch(() => {})
      .finally(measure);
  }, opts.refineMs);
  (timer as { unref?: () => void }).unref?.();
  return { admission, stop: () => clearInterval(timer) };
}
