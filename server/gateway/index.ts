/**
 * The real-time gateway on Bun's native WebSocket: a socket adapter. Token → admission → the live
 * session from the session host; frames → session; session messages → socket (with backpressure);
 * close codes. Sessions themselves (obtaining, hand-over, time windows, sweep) live in the session
 * host; the VAD and the callback dispatcher are built by the composition root.
 */
import type { ServerWebSocket } from "bun";
import type { AppDeps } from "../deps.ts";
import type { SessionHost } from "../session/host.ts";
import { isEssential, type SessionMessage } from "../session/messages.ts";
import type { LiveSession, SessionSink } from "../session/session.ts";
import type { SessionRecord } from "../store/types.ts";
import { Admission } from "./admission.ts";
import { MAX_FRAME_BYTES, MAX_READ_FRAME_BYTES, parseFrame } from "./frames.ts";
import { Outbox } from "./outbox.ts";
import type { Gateway } from "./types.ts";
import { socketClosed, socketOpened } from "../metrics/index.ts";

/** What an upgraded socket carries: the resolved session, or why it is refused. */
export interface SocketData {
  token: string;
  record: SessionRecord | null;
  conn?: Connection;
}

export interface GatewayOptions {
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

  send(message: SessionMessage): void {
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

/** Builds the gateway mounted by `server/server.ts` over the sessions of `host`. */
export function createGateway(deps: AppDeps, host: SessionHost, options: GatewayOptions = {}): LiveGateway {
  const maxFrame = options.maxFrameBytes ?? MAX_FRAME_BYTES;
  const admission = new Admission(deps, host);

  async function openConnection(conn: Connection, record: SessionRecord): Promise<void> {
    const refused = await admission.refusal(record);
    if (refused) {
      conn.close(1011, refused);
      return;
    }
    const session = await host.connect(record);
    if (session === "failed") {
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

  function onFrame(conn: Connection, frame: string | Buffer): void {
    const session = conn.session!;
    const parsed = parseFrame(frame, maxFrame);
    if (parsed.kind === "audio") session.audio(parsed.bytes);
    else if (parsed.kind === "stop") session.stop("stop_recording");
    else session.error(parsed.message);
  }

  return {
    async upgrade(req, server) {
      if (host.shuttingDown) return new Response("service restarting", { status: 503 });
      const token = new URL(req.url).searchParams.get("token") ?? "";
      const resolved = await admission.resolve(token);
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
        socketOpened();
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
        socketClosed();
        const conn = ws.data.conn;
        if (!conn) return;
        conn.closed = true;
        conn.session?.detach(conn);
      },
    },
    shutdown: () => host.shutdown(),
    activeSessions: () => host.size,
    tick: () => host.tick(),
    session: (id) => host.session(id),
    sweepAbandoned: () => host.sweepAbandoned(),
  };
}
