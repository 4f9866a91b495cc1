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
import { isEssential, type ServerMessage } from "../session/messages.ts";
import { loadSession, removeTail, saveSession } from "../session/persist.ts";
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
}

const vadCache = new Map<string, Promise<SileroVad>>();

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
  const opening = new Map<string, Promise<LiveSession | null>>();
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
      onEnded: (id) => sessions.delete(id),
    };
  }

  /** Decides whether a token may connect; a Response refuses the upgrade over HTTP. */
  function resolve(token: string): SessionRecord | null | Response {
    if (!token) return null;
    const found = deps.store.getSessionByTokenHash(tokenHash(token));
    if (!found) return null;
    const now = deps.clock.now();
    const record = settleExpiry(deps.store, found, now);
    if (record.status === "done" || record.status === "error") return null;
    const live = sessions.get(record.id);
    if (live) return live.currentPhase === "ended" ? null : record;
    if (record.connectedAt === null) {
      const account = deps.store.getAccount(record.accountId);
      if (!account) return null;
      const open = deps.store.countOpenSessions(record.accountId, now, URL_TTL_MS);
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
    // Connected before but not held here: resumable only from a persisted state, inside the window.
    if (!record.resumeState) return null;
    if (now - record.updatedAt > RESUME_WINDOW_MS) return null;
    return record;
  }

  /** Gets the live session of a record: held, restored from a persisted state, or new. */
  function obtain(record: SessionRecord): Promise<LiveSession | null> {
    const held = sessions.get(record.id);
    if (held) return Promise.resolve(held);
    let p = opening.get(record.id);
    if (p) return p;
    p = (async () => {
      const account = deps.store.getAccount(record.accountId);
      if (!account) return null;
      const restored = record.resumeState ? loadSession(record.resumeState) : undefined;
      if (record.resumeState && !restored) return null;
      const session = await LiveSession.open(await sessionDeps(record), record, account, restored ?? undefined);
      if (restored) {
        removeTail(record.resumeState);
        deps.store.updateSession(record.id, { resumeState: null, updatedAt: deps.clock.now() });
      }
      sessions.set(record.id, session);
      return session;
    })().finally(() => opening.delete(record.id));
    opening.set(record.id, p);
    return p;
  }

  async function openConnection(conn: Connection, record: SessionRecord): Promise<void> {
    if (!sessions.has(record.id) && record.connectedAt === null) {
      const reason = refusedOption(record.appliedOptions as AppliedOptions, record.requestedOptions, await deps.coordinator.capabilities());
      if (reason) {
        const now = deps.clock.now();
        deps.store.updateSession(record.id, { status: "error", error: { code: "rejected", message: reason }, connectedAt: now, endedAt: now, updatedAt: now });
        conn.close(1011, `rejected: ${reason}`.slice(0, 120));
        return;
      }
    }
    let session: LiveSession | null;
    try {
      session = await obtain(record);
    } catch (e) {
      deps.log.error("session could not start", { session_id: record.id, err: e });
      const now = deps.clock.now();
      deps.store.updateSession(record.id, { status: "error", error: { code: "internal", message: (e as Error).message }, endedAt: now, updatedAt: now });
      conn.close(1011, "session could not start");
      return;
    }
    if (conn.closed || conn.ws.readyState !== 1) return;
    if (!session || session.currentPhase === "ended") {
      conn.close(4401, "invalid or expired token");
      return;
    }
    conn.session = session;
    session.attach(conn);
    for (const frame of conn.early.splice(0)) onFrame(conn, frame);
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
    upgrade(req, server) {
      if (shuttingDown) return new Response("service restarting", { status: 503 });
      const token = new URL(req.url).searchParams.get("token") ?? "";
      const resolved = resolve(token);
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
          if (s.currentPhase === "stopping") {
            await s.ended();
            return;
          }
          const state = await s.snapshot();
          if (state) {
            const stored = saveSession(deps.config.dataDir, s.id, state);
            deps.store.updateSession(s.id, { resumeState: stored, updatedAt: deps.clock.now() });
          }
          await s.suspend();
        }),
      );
      sessions.clear();
      if (callbacks && !options.callbacks) await callbacks.close({ graceMs: 2000 });
    },
    activeSessions: () => sessions.size,
    tick,
    session: (id) => sessions.get(id),
  };
}
