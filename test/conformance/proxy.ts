/**
 * A small mutating proxy between the suite and a healthy service, forwarding HTTP and WebSocket.
 * Each fault breaks the contract in one way; with no fault it is transparent.
 */
import type { ServerWebSocket } from "bun";

export type Fault = "none" | "undocumented_status" | "unknown_member" | "corrupt_ws_message" | "ignore_refused_options" | "refuse_ignored_options";

export interface Proxy {
  url: string;
  /** Responses / messages the fault changed. */
  mutated: number;
  stop(): void;
}

type Data = { path: string; upstream?: WebSocket; pending: (string | Buffer)[] };

export function startProxy(upstream: string, fault: Fault): Proxy {
  const state = { mutated: 0 };
  const wsBase = upstream.replace(/^http/, "ws");
  const server = Bun.serve<Data, never>({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req, srv) {
      const url = new URL(req.url);
      if (req.headers.get("upgrade")?.toLowerCase() === "websocket") {
        if (srv.upgrade(req, { data: { path: url.pathname + url.search, pending: [] } })) return undefined;
        return new Response("upgrade failed", { status: 400 });
      }
      const headers = new Headers(req.headers);
      headers.delete("host");
      let sent: ArrayBuffer | string | undefined = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      if (fault === "ignore_refused_options" && req.method === "POST" && url.pathname === "/v2/live" && sent !== undefined) {
        // A service that accepts options it does not run and ignores them: they never reach it.
        try {
          const init = JSON.parse(new TextDecoder().decode(sent));
          if (init && typeof init === "object" && "realtime_processing" in init) {
            delete init.realtime_processing;
            sent = JSON.stringify(init);
            headers.delete("content-length");
            state.mutated++;
          }
        } catch {
          // not JSON: forwarded as it is
        }
      }
      if (fault === "refuse_ignored_options" && req.method === "POST" && url.pathname === "/v2/live" && sent !== undefined) {
        // A service refusing the options the specification has accepted and ignored.
        try {
          const init = JSON.parse(typeof sent === "string" ? sent : new TextDecoder().decode(sent));
          if (init?.post_processing?.summarization === true) {
            state.mutated++;
            const body = { statusCode: 400, timestamp: new Date().toISOString(), path: "/v2/live", message: "Invalid session options", request_id: "G-00000000", validation_errors: ["post_processing.summarization: true is not offered: no summarization"], error: null };
            return new Response(JSON.stringify(body), { status: 400, headers: { "content-type": "application/json", "x-request-id": "G-00000000" } });
          }
        } catch {
          // not JSON: forwarded as it is
        }
      }
      const res = await fetch(upstream + url.pathname + url.search, { method: req.method, headers, body: sent, redirect: "manual" });
      let status = res.status;
      let body: ArrayBuffer | string = await res.arrayBuffer();
      const out = new Headers(res.headers);
      out.delete("content-length");
      out.delete("content-encoding");
      if (fault === "undocumented_status" && status === 404) {
        status = 410;
        state.mutated++;
      }
      if (fault === "unknown_member" && out.get("content-type")?.startsWith("application/json")) {
        const parsed = JSON.parse(new TextDecoder().decode(body));
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
          body = JSON.stringify({ ...parsed, zz_injected: true });
          state.mutated++;
        }
      }
      return new Response(status === 204 || status === 202 ? null : body, { status, headers: out });
    },
    websocket: {
      open(ws: ServerWebSocket<Data>) {
        const up = new WebSocket(wsBase + ws.data.path);
        up.binaryType = "arraybuffer";
        ws.data.upstream = up;
        up.addEventListener("open", () => {
          for (const m of ws.data.pending.splice(0)) up.send(m);
        });
        up.addEventListener("message", (e) => {
          let text = typeof e.data === "string" ? e.data : new TextDecoder().decode(e.data as ArrayBuffer);
          if (fault === "corrupt_ws_message") {
            const m = JSON.parse(text);
            delete m.session_id;
            text = JSON.stringify(m);
            state.mutated++;
          }
          ws.send(text);
        });
        up.addEventListener("close", (e) => {
          const code = e.code === 1005 || e.code === 1006 ? 1011 : e.code;
          ws.close(code, e.reason);
        });
      },
      message(ws: ServerWebSocket<Data>, message) {
        const up = ws.data.upstream;
        if (up && up.readyState === WebSocket.OPEN) up.send(message);
        else ws.data.pending.push(message);
      },
      close(ws: ServerWebSocket<Data>) {
        ws.data.upstream?.close();
      },
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    get mutated() {
      return state.mutated;
    },
    stop: () => server.stop(true),
  };
}
