/** Placeholder gateway: refuses every token (4401) until the real-time pipeline is mounted. */
import type { AppDeps } from "../deps.ts";
import type { Gateway } from "./types.ts";

interface Data {
  token: string | null;
}

export function createGateway(_deps: AppDeps): Gateway<Data> {
  return {
    upgrade(req, server) {
      const token = new URL(req.url).searchParams.get("token");
      if (server.upgrade(req, { data: { token } })) return undefined;
      return new Response("WebSocket upgrade expected", { status: 400 });
    },
    websocket: {
      open(ws) {
        ws.close(4401, "invalid or expired token");
      },
      message() {},
    },
    async shutdown() {},
    activeSessions: () => 0,
  };
}
