/**
 * Capacity-aware admission of new sessions (embedded mode). Every admitted session counts its
 * model's estimated stream cost (`StreamCosts`, engine-seconds per audio-second) from its creation
 * until it ends, or until its URL expires unused; a new session is admitted while that load, its
 * own cost included, stays within the limit (engine threads × headroom, engine-seconds per second).
 * Refusals: "no_room" when the model's one stream alone exceeds the limit (no endpoint has room for
 * it: 500 `no_inference_endpoint`), "saturated" when the sessions already admitted leave too little
 * (503 `no_capacity`, retry later).
 */
import type { ModelCapability } from "../../workers/contract/types.ts";
import { URL_TTL_MS } from "../session-records/limits.ts";
import type { SessionRecord } from "../store/types.ts";
import type { StreamCosts } from "./estimates.ts";

export type Refusal = "no_room" | "saturated";

/** A place held for a session being created: confirmed with its id once stored, else cancelled. */
export type Seat =
  | { ok: true; confirm(sessionId: string): void; cancel(): void }
  | { ok: false; refusal: Refusal; load: number; cost: number; limit: number };

export interface AdmissionOptions {
  /** Engine-seconds per second the admitted sessions may need together; 0 = no limit. */
  limit: number;
  costs: StreamCosts;
  /** The sessions this process holds (connected, or inside their reconnect window). */
  held(): Iterable<{ id: string; model: string }>;
  /** The stored record of a session admitted and not yet held. */
  lookup(id: string): Promise<SessionRecord | null>;
  /** Milliseconds, the clock of the records' `createdAt`. */
  now(): number;
}

/** What `/metrics` shows: the limit, and per model the sessions admitted, their load and one stream's cost. */
export interface CapacitySnapshot {
  limit: number;
  models: { model: string; sessions: number; load: number; streamCost: number }[];
  refused: Record<Refusal, number>;
}

interface Pending {
  model: string;
  /** False while the session is being stored (keyed by a placeholder). */
  stored: boolean;
}

export class Admission {
  /** Sessions admitted and not yet held (keyed by session id, or a placeholder while stored). */
  private readonly pending = new Map<string | symbol, Pending>();
  /** The engine serving each public model, as last seen in the capabilities. */
  private readonly engines = new Map<string, string>();
  readonly refused: Record<Refusal, number> = { no_room: 0, saturated: 0 };

  constructor(private readonly opts: AdmissionOptions) {}

  get limited(): boolean {
    return this.opts.limit > 0;
  }

  /** The engine serving `model` (as last seen), for the cost meter. */
  engineOf(model: string): string | undefined {
    return this.engines.get(model);
  }

  /** Learns which engine serves each model. */
  learn(caps: readonly ModelCapability[]): void {
    for (const c of caps) this.engines.set(c.model, c.engine);
  }

  /** One stream's estimated cost on `model` (a model of unknown engine: the catalogue's default). */
  costOf(model: string): number {
    return this.opts.costs.of(this.engines.get(model) ?? model);
  }

  /** Holds a place for a new session of `capability.model`, or says why there is none. */
  async reserve(capability: ModelCapability): Promise<Seat> {
    this.engines.set(capability.model, capability.engine);
    const none = () => {};
    if (!this.limited) return { ok: true, confirm: none, cancel: none };
    const loads = await this.loads();
    // From here on synchronous: two creations cannot both take the last place.
    const cost = this.costOf(capability.model);
    const load = this.sum(loads) + this.pendingLoad();
    const limit = this.opts.limit;
    const refusal: Refusal | null = cost > limit ? "no_room" : load + cost > limit ? "saturated" : null;
    if (refusal) {
      this.refused[refusal]++;
      return { ok: false, refusal, load, cost, limit };
    }
    const key = Symbol("creating");
    const entry: Pending = { model: capability.model, stored: false };
    this.pending.set(key, entry);
    return {
      ok: true,
      confirm: (id) => {
        this.pending.delete(key);
        this.pending.set(id, { ...entry, stored: true });
      },
      cancel: () => this.pending.delete(key),
    };
  }

  async snapshot(): Promise<CapacitySnapshot> {
    const loads = await this.loads();
    for (const p of this.pending.values()) this.add(loads, p.model);
    for (const model of this.engines.keys()) if (!loads.has(model)) loads.set(model, 0);
    const cost = (m: string) => this.costOf(m);
    return {
      limit: this.opts.limit,
      models: [...loads].map(([model, sessions]) => ({ model, sessions, load: sessions * cost(model), streamCost: cost(model) })),
      refused: { ...this.refused },
    };
  }

  /** Sessions held per model, once the admitted sessions that ended or expired are let go. */
  private async loads(): Promise<Map<string, number>> {
    const held = new Map<string, number>();
    const ids = new Set<string | symbol>();
    for (const s of this.opts.held()) {
      ids.add(s.id);
      this.add(held, s.model);
    }
    for (const [key, p] of [...this.pending]) {
      if (!p.stored || typeof key !== "string") continue;
      if (ids.has(key)) {
        this.pending.delete(key); // held from now on: counted there until it ends
        continue;
      }
      const record = await this.opts.lookup(key);
      const waiting = record !== null && record.status === "queued" && record.connectedAt === null && this.opts.now() - record.createdAt < URL_TTL_MS;
      if (!waiting) this.pending.delete(key);
    }
    return held;
  }

  private add(counts: Map<string, number>, model: string): void {
    counts.set(model, (counts.get(model) ?? 0) + 1);
  }

  private sum(counts: Map<string, number>): number {
    let load = 0;
    for (const [model, n] of counts) load += n * this.costOf(model);
    return load;
  }

  private pendingLoad(): number {
    let load = 0;
    for (const p of this.pending.values()) load += this.costOf(p.model);
    return load;
  }
}
