/**
 * The live sessions this gateway holds: obtaining a session (held here, handed over by another
 * gateway, restored from a persisted state, or new), letting one go (its state stored for whichever
 * gateway the client reconnects to), the time windows, and the sweep of sessions abandoned by a
 * gateway that stopped or died. Knows nothing of sockets.
 */
import type { InferenceCoordinator } from "../../workers/contract/types.ts";
import type { SessionDirectory } from "../cluster/directory.ts";
import type { Clock } from "../clock.ts";
import type { CallbackDispatcher } from "../delivery/callbacks.ts";
import type { Logger } from "../log.ts";
import { RESUME_WINDOW_MS } from "../session-records/limits.ts";
import type { SessionRecord, Store } from "../store/types.ts";
import type { EnricherFactory } from "./enrich.ts";
import { restoreCheckpoint } from "./checkpoint.ts";
import { decodeSession, encodeSession } from "./persist.ts";
import { LiveSession, type LiveSessionDeps, type Vad } from "./session.ts";

/** How long a gateway waits for another one to hand a session over before answering 1012. */
const HANDOVER_TIMEOUT_MS = 8_000;
const SESSION_LOST = { code: "session_lost", message: "the gateway holding the session stopped without handing it over, and no checkpoint of it was stored" };

/** A live session, or why none: gone (4401) or still held by another gateway (1012: reconnect). */
export type Obtained = LiveSession | "gone" | "busy";
/** `obtain` for the sweep: also "recent" when the session's last checkpoint is younger than the resume window. */
type Swept = Obtained | "recent";

export interface SessionHostDeps {
  store: Store;
  clock: Clock;
  coordinator: InferenceCoordinator;
  directory: SessionDirectory;
  log: Logger;
  recordingsDir: string;
  /** The loaded VAD (loaded on first use by the composition root). */
  vad: () => Promise<Vad>;
  /** The callback dispatcher, for sessions with `callback: true`. */
  callbacks: () => CallbackDispatcher;
  /** The enrichment stage's add-ons (default: `createEnrichers`). */
  enrichers?: EnricherFactory;
  /** Interval of the time-window checks in ms (default 1000; 0 = only explicit `tick()`). */
  tickIntervalMs?: number;
}

export class SessionHost {
  private readonly sessions = new Map<string, LiveSession>();
  private readonly opening = new Map<string, Promise<Obtained>>();
  private stopping = false;
  private readonly interval: ReturnType<typeof setInterval> | null;

  constructor(private readonly deps: SessionHostDeps) {
    deps.directory.onHandOverRequest(async (id) => {
      await this.opening.get(id);
      const s = this.sessions.get(id);
      if (s) await this.letGo(s, 4000, "superseded by a new connection");
    });
    const every = deps.tickIntervalMs ?? 1000;
    this.interval = every > 0 ? setInterval(() => this.tick(), every) : null;
    (this.interval as { unref?: () => void } | null)?.unref?.();
  }

  /** Sessions held here (with a socket or inside their reconnect window). */
  get size(): number {
    return this.sessions.size;
  }

  /** The sessions held here, with their public model (admission counts them). */
  *held(): IterableIterator<{ id: string; model: string }> {
    for (const s of this.sessions.values()) yield { id: s.id, model: s.options.model };
  }

  /** True once `shutdown` began. */
  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** The live session of an id, if this process holds it. */
  session(id: string): LiveSession | undefined {
    return this.sessions.get(id);
  }

  /**
   * Gets the live session of a record: held, handed over by another gateway (unless `takeOver` is
   * false: then "busy" when another gateway holds it), restored, or new.
   */
  obtain(record: SessionRecord, opts: { takeOver?: boolean } = {}): Promise<Obtained> {
    return this.obtainOrSkip(record, opts) as Promise<Obtained>;
  }

  /** `obtain`; with `checkpointedBefore`, a session restored from a later checkpoint is left alone ("recent"). */
  private obtainOrSkip(record: SessionRecord, { takeOver = true, checkpointedBefore }: { takeOver?: boolean; checkpointedBefore?: number }): Promise<Swept> {
    const held = this.sessions.get(record.id);
    if (held) return Promise.resolve(held);
    const p = this.opening.get(record.id);
    if (p) return p;
    const { directory } = this.deps;
    const q = (async (): Promise<Swept> => {
      const holder = await directory.claim(record.id);
      if (holder !== null && !(takeOver && (await directory.handOver(record.id, holder, HANDOVER_TIMEOUT_MS)))) return "busy";
      try {
        const session = await this.start(record.id, checkpointedBefore);
        if (session === "gone" || session === "recent") await directory.release(record.id);
        return session;
      } catch (e) {
        await directory.release(record.id);
        throw e;
      }
    })().finally(() => this.opening.delete(record.id));
    // Another caller joining a sweep that leaves the session alone is told to reconnect.
    const shared = q.then((s) => (s === "recent" ? "busy" : s));
    shared.catch(() => {});
    this.opening.set(record.id, shared);
    return q;
  }

  /** A socket's client connects: `obtain`, with a session that cannot start stored as failed ("failed"). */
  async connect(record: SessionRecord): Promise<Obtained | "failed"> {
    try {
      return await this.obtain(record);
    } catch (e) {
      const { log, clock, store } = this.deps;
      log.error("session could not start", { session_id: record.id, err: e });
      const now = clock.now();
      await store.updateSession(record.id, { status: "error", error: { code: "internal", message: (e as Error).message }, endedAt: now, updatedAt: now });
      return "failed";
    }
  }

  /** Applies the time windows now (silence, reconnect window); also runs on an interval. */
  tick(): void {
    for (const s of this.sessions.values()) s.tick();
  }

  /**
   * Ends running sessions nobody holds whose client did not come back within the resume window (a
   * gateway stopped or died under them): they end as if their client had gone away, with the audio
   * received transcribed and stored. Returns how many it ended.
   */
  async sweepAbandoned(): Promise<number> {
    const { store, clock, log } = this.deps;
    let ended = 0;
    for (const r of await store.runningSessions()) {
      if (this.stopping) break;
      if (this.sessions.has(r.id) || this.opening.has(r.id) || r.connectedAt === null) continue;
      if (clock.now() - r.updatedAt <= RESUME_WINDOW_MS) continue;
      // Claimed without asking for a hand-over: a session held by a live gateway is not abandoned.
      // (A session whose gateway died is left alone while its last checkpoint is inside the window.)
      const s = await this.obtainOrSkip(r, { takeOver: false, checkpointedBefore: clock.now() - RESUME_WINDOW_MS }).catch((e): "gone" => {
        log.error("abandoned session could not be ended", { session_id: r.id, err: e });
        return "gone";
      });
      if (s === "gone" || s === "busy" || s === "recent") continue;
      log.info("ending an abandoned session", { session_id: r.id });
      s.stop("disconnected");
      await s.ended();
      ended++;
    }
    return ended;
  }

  /** SIGTERM: every held session is let go (state persisted, socket closed with 1012) and released. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    if (this.interval) clearInterval(this.interval);
    await Promise.all(this.opening.values());
    const all = [...this.sessions.values()];
    await Promise.all(
      all.map(async (s) => {
        await this.letGo(s, 1012, "service restarting");
        await this.deps.directory.release(s.id);
      }),
    );
    this.sessions.clear();
  }

  /** Starts a session this gateway has claimed, from the record as it stands now. */
  private async start(id: string, checkpointedBefore?: number): Promise<LiveSession | "gone" | "recent"> {
    const { store, clock } = this.deps;
    // Read again: a gateway that just handed the session over stored its resume state.
    const record = await store.getSessionById(id);
    if (!record || record.status === "done" || record.status === "error") return "gone";
    const account = await store.getAccount(record.accountId);
    if (!account) return "gone";
    // Handed over or stopped cleanly: the state stored then. Otherwise, when it ran before, its
    // gateway died: the checkpoint stored with its last acknowledgment.
    let restored = record.resumeState ? decodeSession(record.resumeState) : null;
    if (!restored && record.connectedAt !== null) {
      const checkpoint = restoreCheckpoint(await store.loadCheckpoint(id), id, () => clock.now());
      if (checkpoint && checkpointedBefore !== undefined && checkpoint.savedAt > checkpointedBefore) return "recent";
      restored = checkpoint?.session ?? null;
      if (restored) this.deps.log.info("session restored from its checkpoint", { session_id: id, received: restored.received, finals: restored.utterances.length });
    }
    if (record.connectedAt !== null && !restored) {
      // Connected before, yet nobody holds it and nothing was persisted: its gateway died.
      const now = clock.now();
      await store.updateSession(id, { status: "error", error: SESSION_LOST, endedAt: now, updatedAt: now });
      return "gone";
    }
    const session = await LiveSession.open(await this.sessionDeps(record), record, account, restored ?? undefined);
    if (restored) await store.updateSession(id, { resumeState: null, updatedAt: clock.now() });
    this.sessions.set(id, session);
    return session;
  }

  private async sessionDeps(record: SessionRecord): Promise<LiveSessionDeps> {
    const d = this.deps;
    return {
      store: d.store,
      clock: d.clock,
      coordinator: d.coordinator,
      log: d.log,
      recordingsDir: d.recordingsDir,
      vad: await d.vad(),
      callbacks: record.appliedOptions.callback ? d.callbacks() : null,
      enrichers: d.enrichers,
      onEnded: (id) => {
        this.sessions.delete(id);
        void d.directory.release(id);
      },
    };
  }

  /** Lets a session go without ending it: its state is stored for the gateway the client reconnects to. */
  private async letGo(s: LiveSession, code: number, reason: string): Promise<void> {
    if (s.currentPhase === "stopping") {
      await s.ended();
      return;
    }
    const state = await s.snapshot();
    if (state) await this.deps.store.updateSession(s.id, { resumeState: encodeSession(state), updatedAt: this.deps.clock.now() });
    await s.suspend(code, reason);
    this.sessions.delete(s.id);
  }
}
