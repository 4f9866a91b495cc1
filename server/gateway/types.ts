/** The WebSocket side of the service, mounted by `server/server.ts` next to the HTTP app. */
import type { Server, WebSocketHandler } from "bun";

export interface Gateway<Data = unknown> {
  /**
   * Handles a WebSocket upgrade request for `/v2/live?token=…`. Returns a Response when the request is
   * refused over HTTP (e.g. 429 past the concurrency limit), or undefined once `server.upgrade` took it.
   * An invalid or expired token is accepted and then closed with 4401.
   */
  upgrade(req: Request, server: Server<Data>, clientIp: string | null): Promise<Response | undefined>;
  websocket: WebSocketHandler<Data>;
  /** SIGTERM: persist the state of running sessions, release them, and close their sockets with 1012. */
  shutdown(): Promise<void>;
  /** Sessions with an open socket or inside their reconnect window. */
  activeSessions(): number;
}
