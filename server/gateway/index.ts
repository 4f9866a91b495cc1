/**
 * The real-time gateway on Bun's native WebSocket: token → session, frames → session, session
 * messages → socket (with backpressure), close codes, periodic time windows and SIGTERM drain.
 */
import { join } from "node:path";
import type { ServerWebSocket } from "bun";
import { SileroVad } from "../../workers/vad/silero.ts";
import { createCallbackDispatcher, type CallbackDispatcher } from "../delivery/callbacks.ts";
import type { AppDeps } from "../deps.ts";
import { errorBody, newRequestId } from "../http/errors.ts";
import type { AppliedOptions } from "../options/defaults.ts";
import { settleExpiry } from "../sessions/expiry.ts";
import { RESUME_WINDOW_MS, URL_TTL_MS } from "../sessions/limits.ts";
import { tokenHash } from "../sessions/tokens.ts";
import type { SessionRecord } from "../store/types.ts";
import { refusedOption } from "../session/admission.ts";
import { offeredCapabilities } from "../options/offered.ts";
import { loadSpeakerEncoder } from "../../workers/engines/speaker/index.ts";
import { loadTurnModel } from "../../workers/engines/turn/index.ts";
import { isEssential, type ServerMessage } from "../session/messages.ts";
import { decodeSession, encodeSession } from "../session/persist.ts";
import { LiveSession, type LiveSessionDeps, type SessionSink } from "../session/session.ts";
import { MAX_FRAME_BYTES, MAX_READ_FRAME_BYTES, parseFrame } from "./frames.ts";
import { Outbox } from "./outbox.ts";
import type { Gateway } from "./types.ts";

/** What an upgraded socket carries: the resolved session, or why it is refused. */
export interface SocketData {
  token: string;
  record: SessionRecord | null;
  conn?: Connection;
}

export interface GatewayOptions {
  /** A loaded Silero VAD; loaded once from MODELS_DIR when absent. */
  vad?: SileroVad;
  /** Callback dispatcher; created from the config flags when absent. */
  callbacks?: CallbackDispatcher;
  /** Interval of the time-window checks in ms (default 1000; 0 = only explicit `tick()`). */
  tickIntervalMs?: number;
  /** Largest accepted frame in bytes (default 1 MiB). */
  maxFrameBytes?: number;
}

export interface LiveGateway extends Gateway<SocketData> {
  /** Applies the time windows now (silence, reconnect window); also runs on an interval. */
  tick(): void;
  /** The live session of an id, if this process holds it. */
  session(id: string): LiveSession | undefined;
  /**
   * Ends running sessions nobody holds whose client did not come back within the resume window (a
   * gateway stopped or died under them): they end as if their client had gone away, with the audio
   * received transcribed and stored. Returns how many it ended. Runs periodically from the server.
   */
  sweepAbandoned(): Promise<number>;
}

const vadCache = new Map<string, Promise<SileroVad>>();

/** How long a gateway waits for another one to hand a session over before answering 1012. */
const HANDOVER_TIMEOUT_MS = 8_000;
const SESSION_LOST = { code: "session_lost", message: "the gateway holding the session stopped without handing it over" };

/** Loads the Silero VAD once per process and path. */
export function loadVad(modelsDir: string): Promise<SileroVad> {
  const path = join(modelsDir, "silero-vad", "silero_vad.onnx");
  let p = vadCache.get(path);
  if (!p) {
    p = SileroVad.load(path);
    p.catch(() => vadCache.delete(path));
    vadCache.set(path, p);
  }
  return p;
}

/** A live session, or why none: gone (4401) or still held by another gateway (1012: reconnect). */
type Obtained = LiveSession | "gone" | "busy";

/** One WebSocket connection and its outbound queue. */
class Connection implements SessionSink {
  readonly outbox: Outbox;
  session: LiveSession | null = null;
  /** Frames received before the session was ready, in order. */
  early: (string | Buffer)[] = [];
  closed = false;
  private closeAfterDrain: { code: number; reason: string } | null = null;

  constructor(readonly ws: ServerWebSocket<SocketData>) {
    this.outbox = new Outbox({ send: (d) => ws.send(d) });
  }

  send(message: ServerMessage): void {
    if (this.closed) return;
    this.outbox.send(JSON.stringify(message), isEssential(message));
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    if (this.outbox.pending > 0) {
      this.closeAfterDrain = { code, reason };
      return;
    }
    this.closed = true;
    this.ws.close(code, reason);
  }

  drain(): void {
    this.outbox.drain();
    if (this.closeAfterDrain && this.outbox.pending === 0) {
      const { code, reason } = this.closeAfterDrain;
      this.closeAfterDrain = null;
      this.close(code, reason);
    }
  }
}

/** Builds the gateway mounted by `server/server.ts`. */
export function createGateway(deps: AppDeps, options: GatewayOptions = {}): LiveGateway {
  const sessions = new Map<string, LiveSession>();
  const opening = new Map<string, Promise<Obtained>>();
  const maxFrame = options.maxFrameBytes ?? MAX_FRAME_BYTES;
  let callbacks = options.callbacks ?? null;
  let shuttingDown = false;

  const dispatcher = (): CallbackDispatcher =>
    (callbacks ??= createCallbackDispatcher({
      allowLoopback: deps.config.callbacksAllowLoopback,
      allowPrivate: deps.config.callbacksAllowPrivate,
      onFailure: (f) => deps.log.warn("callback abandoned", { ...f }),
    }));

  async function sessionDeps(record: SessionRecord): Promise<LiveSessionDeps> {
    const applied = record.appliedOptions as AppliedOptions;
    return {
      store: deps.store,
      clock: deps.clock,
      coordinator: deps.coordinator,
      log: deps.log,
      recordingsDir: deps.recordingsDir,
      vad: options.vad ?? (await loadVad(deps.config.modelsDir)),
      callbacks: applied.callback ? dispatcher() : null,
      addons: {
        turn: record.requestedOptions.end_of_turn != null ? await loadTurnModel(deps.config.modelsDir) : null,
        speaker: applied.diarization ? await loadSpeakerEncoder(deps.config.modelsDir) : null,
      },
      onEnded: (id) => {
        sessions.delete(id);
        void deps.directory.release(id);
      },
    };
  }

  /** Decides whether a token may connect; a Response refuses the upgrade over HTTP. */
  async function resolve(token: string): Promise<SessionRecord | null | Response> {
    if (!token) return null;
    const found = await deps.store.getSessionByTokenHash(tokenHash(token));
    if (!found) return null;
    const now = deps.clock.now();
    const record = await settleExpiry(deps.store, found, now);
    if (record.status === "done" || record.status === "error") return null;
    const live = sessions.get(record.id);
    if (live) return live.currentPhase === "ended" ? null : record;
    if (record.connectedAt === null) {
      const account = await deps.store.getAccount(record.accountId);
      if (!account) return null;
      const open = await deps.store.countOpenSessions(record.accountId, now, URL_TTL_MS);
      if (open > account.plan.maxConcurrentSessions) {
        const body = errorBody(429, "/v2/live", newRequestId(), {
          message: "the account already has its maximum number of open sessions",
          reason: null,
          validationErrors: null,
        });
        return Response.json(body, { status: 429 });
      }
      return record;
    }
    // Connected before but not held here: another gateway may hold it (it will hand it over), or a
    // gateway that stopped left a persisted state to resume from, inside the window.
    if (!record.resumeState) return deps.directory.shared ? record : null;
    if (now - record.updatedAt > RESUME_WINDOW_MS) return null;
    return record;
  }

  /**
   * Gets the live session of a record: held, handed over by another gateway (unless `takeOver` is
   * false: then "busy" when another gateway holds it), restored, or new.
   */
  function obtain(record: SessionRecord, { takeOver = true } = {}): Promise<Obtained> {
    const held = sessions.get(record.id);
    if (held) return Promise.resolve(held);
    let p = opening.get(record.id);
    if (p) return p;
    p = (async (): Promise<Obtained> => {
      const holder = await deps.directory.claim(record.id);
      if (holder !== null && !(takeOver && (await deps.directory.handOver(record.id, holder, HANDOVER_TIMEOUT_MS)))) return "busy";
      try {
        const session = await start(record.id);
        if (session === "gone") await deps.directory.release(record.id);
        return session;
      } catch (e) {
        await deps.directory.release(record.id);
        throw e;
      }
    })().finally(() => opening.delete(record.id));
    opening.set(record.id, p);
    return p;
  }

  /** Starts a session this gateway has claimed, from the record as it stands now. */
  async function start(id: string): Promise<LiveSession | "gone"> {
    // Read again: a gateway that just handed the session over stored its resume state.
    const record = await deps.store.getSessionById(id);
    if (!record || record.status === "done" || record.status === "error") return "gone";
    const account = await deps.store.getAccount(record.accountId);
    if (!account) return "gone";
    const restored = record.resumeState ? decodeSession(record.resumeState) : null;
    if (record.connectedAt !== null && !restored) {
      // Connected before, yet nobody holds it and nothing was persisted: its gateway died.
      const now = deps.clock.now();
      await deps.store.updateSession(id, { status: "error", error: SESSION_LOST, endedAt: now, updatedAt: now });
      return "gone";
    }
    const session = await LiveSession.open(await sessionDeps(record), record, account, restored ?? undefined);
    if (restored) await deps.store.updateSession(id, { resumeState: null, updatedAt: deps.clock.now() });
    sessions.set(id, session);
    return session;
  }

  /** Lets a session go without ending it: its state is stored for the gateway the client reconnects to. */
  async function letGo(s: LiveSession, code: number, reason: string): Promise<void> {
    if (s.currentPhase === "stopping") {
      await s.ended();
      return;
    }
    const state = await s.snapshot();
    if (state) await deps.store.updateSession(s.id, { resumeState: encodeSession(state), updatedAt: deps.clock.now() });
    await s.suspend(code, reason);
    sessions.delete(s.id);
  }

  deps.directory.onHandOverRequest(async (id) => {
    await opening.get(id);
    const s = sessions.get(id);
    if (s) await letGo(s, 4000, "superseded by a new connection");
  });

  async function openConnection(conn: Connection, record: SessionRecord): Promise<void> {
    if (!sessions.has(record.id) && record.connectedAt === null) {
      const reason = refusedOption(record.appliedOptions as AppliedOptions, record.requestedOptions, await offeredCapabilities(deps));
      if (reason) {
        const now = deps.clock.now();
        await deps.store.updateSession(record.id, { status: "error", error: { code: "rejected", message: reason }, connectedAt: now, endedAt: now, updatedAt: now });
        conn.close(1011, `rejected: ${reason}`.slice(0, 120));
        return;
      }
    }
    let session: Obtained;
    try {
      session = await obtain(record);
    } catch (e) {
      deps.log.error("session could not start", { session_id: record.id, err: e });
      const now = deps.clock.now();
      await deps.store.updateSession(record.id, { status: "error", error: { code: "internal", message: (e as Error).message }, endedAt: now, updatedAt: now });
      conn.close(1011, "session could not start");
      return;
    }
    if (session === "busy") {
      conn.close(1012, "the session is moving between gateways; reconnect");
      return;
    }
    if (conn.closed || conn.ws.readyState !== 1) return;
    if (session === "gone" || session.currentPhase === "ended") {
      conn.close(4401, "invalid or expired token");
      return;
    }
    conn.session = session;
    session.attach(conn);
    for (const frame of conn.early.splice(0)) onFrame(conn, frame);
  }

  async function sweepAbandoned(): Promise<number> {
    let ended = 0;
    for (const r of await deps.store.runningSessions()) {
      if (shuttingDown) break;
      if (sessions.has(r.id) || opening.has(r.id) || r.connectedAt === null) continue;
      if (deps.clock.now() - r.updatedAt <= RESUME_WINDOW_MS) continue;
      // Claimed without asking for a hand-over: a session held by a live gateway is not abandoned.
      const s = await obtain(r, { takeOver: false }).catch((e): "gone" => {
        deps.log.error("abandoned session could not be ended", { session_id: r.id, err: e });
        return "gone";
      });
      if (s === "gone" || s === "busy") continue;
      deps.log.info("ending an abandoned session", { session_id: r.id });
      s.stop("disconnected");
      await s.ended();
      ended++;
    }
    return ended;
  }

  function onFrame(conn: Connection, frame: string | Buffer): void {
    const session = conn.session!;
    const parsed = parseFrame(frame, maxFrame);
    if (parsed.kind === "audio") session.audio(parsed.bytes);
    else if (parsed.kind === "stop") session.stop("stop_recording");
    else session.error(parsed.message);
  }

  function tick(): void {
    for (const s of sessions.values()) s.tick();
  }

  const interval = (options.tickIntervalMs ?? 1000) > 0 ? setInterval(tick, options.tickIntervalMs ?? 1000) : null;
  (interval as { unref?: () => void } | null)?.unref?.();

  return {
    async upgrade(req, server) {
      if (shuttingDown) return new Response("service restarting", { status: 503 });
      const token = new URL(req.url).searchParams.get("token") ?? "";
      const resolved = await resolve(token);
      if (resolved instanceof Response) return resolved;
      if (server.upgrade(req, { data: { token, record: resolved } })) return undefined;
      return new Response("WebSocket upgrade expected", { status: 400 });
    },
    websocket: {
      maxPayloadLength: Math.max(MAX_READ_FRAME_BYTES, maxFrame + 64 * 1024),
      backpressureLimit: 4 * 1024 * 1024,
      closeOnBackpressureLimit: false,
      idleTimeout: 120,
      open(ws) {
        const conn = new Connection(ws);
        ws.data.conn = conn;
        const record = ws.data.record;
        if (!record) {
          conn.close(4401, "invalid or expired token");
          return;
        }
        openConnection(conn, record).catch((e) => {
          deps.log.error("connection failed", { err: e });
          conn.close(1011, "internal error");
        });
      },
      message(ws, message) {
        const conn = ws.data.conn;
        if (!conn || conn.closed) return;
        try {
          if (conn.session) onFrame(conn, message);
          else conn.early.push(message);
        } catch (e) {
          deps.log.error("frame handling failed", { err: e });
        }
      },
      drain(ws) {
        ws.data.conn?.drain();
      },
      close(ws) {
        const conn = ws.data.conn;
        if (!conn) return;
        conn.closed = true;
        conn.session?.detach(conn);
      },
    },
    async shutdown() {
      shuttingDown = true;
      if (interval) clearInterval(interval);
      await Promise.all(opening.values());
      const all = [...sessions.values()];
      await Promise.all(
        all.map(async (s) => {
          await letGo(s, 1012, "service restarting");
          await deps.directory.release(s.id);
        }),
      );
      sessions.clear();
      if (callbacks && !options.callbacks) await callbacks.close({ graceMs: 2000 });
    },
    activeSessions: () => sessions.size,
    tick,
    session: (id) => sessions.get(id),
    sweepAbandoned,
  };
}
