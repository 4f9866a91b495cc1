/**
 * One live session from the browser: `POST /v2/live` with the API key in `x-service-key`, then the
 * WebSocket of the returned `url`, opened on the page's own origin (the playground is served by the
 * service it talks to, so this works behind any proxy whatever `PUBLIC_URL` says).
 */
import type { LiveSessionInit, ServerMessage } from "../../generated/openapi/types.gen.ts";

export interface LiveSession {
  id: string;
  send(pcm: ArrayBuffer): void;
  /** Asks the service to finish: the remaining audio is transcribed, then the socket closes. */
  stop(): void;
  close(): void;
}

export interface SessionHandlers {
  onMessage(message: ServerMessage): void;
  onClose(code: number, reason: string): void;
}

export async function createSession(key: string, init: LiveSessionInit): Promise<{ id: string; url: string }> {
  const response = await fetch("/v2/live", {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-key": key },
    body: JSON.stringify(init),
  });
  const body = (await response.json().catch(() => null)) as { id: string; url: string; message?: string; validation_errors?: string[] } | null;
  if (!response.ok || !body) {
    const details = body?.validation_errors?.length ? `: ${body.validation_errors.join("; ")}` : "";
    throw new Error(`POST /v2/live answered ${response.status}${body?.message ? ` (${body.message}${details})` : ""}`);
  }
  return body;
}

export function connect(session: { id: string; url: string }, handlers: SessionHandlers): Promise<LiveSession> {
  const given = new URL(session.url);
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(`${scheme}//${location.host}${given.pathname}${given.search}`);
  socket.binaryType = "arraybuffer";
  return new Promise((resolve, reject) => {
    socket.onopen = () => {
      resolve({
        id: session.id,
        send: (pcm) => socket.readyState === WebSocket.OPEN && socket.send(pcm),
        stop: () => socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify({ type: "stop_recording" })),
        close: () => socket.close(1000),
      });
    };
    socket.onerror = () => reject(new Error("the WebSocket could not be opened"));
    socket.onmessage = (event) => {
      if (typeof event.data === "string") handlers.onMessage(JSON.parse(event.data) as ServerMessage);
    };
    socket.onclose = (event) => handlers.onClose(event.code, event.reason);
  });
}
