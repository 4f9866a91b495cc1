/**
 * Parsing of client WebSocket frames. Binary frames are raw audio; text frames are JSON client
 * messages validated against the contracts (`audio_chunk` with base64 `data.chunk`, `stop_recording`).
 * Never throws: anything malformed becomes an `invalid` frame with a message for the client.
 */
import { check } from "../../generated/validators.ts";

/** Largest frame accepted (binary, or JSON text), in bytes. */
export const MAX_FRAME_BYTES = 1 << 20;
/**
 * Largest frame the socket reads at all. Frames between MAX_FRAME_BYTES and this are read and answered
 * with an `error` message (the session goes on); only beyond it does the WebSocket layer drop the
 * connection, so the limit sits far above any audio frame a client sends.
 */
export const MAX_READ_FRAME_BYTES = 16 << 20;

export type ClientFrame =
  | { kind: "audio"; bytes: Uint8Array }
  | { kind: "stop" }
  | { kind: "invalid"; message: string };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Classifies one incoming frame. */
export function parseFrame(frame: string | Uint8Array | ArrayBuffer, maxBytes = MAX_FRAME_BYTES): ClientFrame {
  if (typeof frame !== "string") {
    const bytes = frame instanceof Uint8Array ? frame : new Uint8Array(frame);
    if (bytes.byteLength > maxBytes) return { kind: "invalid", message: `frame of ${bytes.byteLength} bytes exceeds the maximum of ${maxBytes}` };
    return { kind: "audio", bytes };
  }
  if (frame.length > maxBytes * 2) return { kind: "invalid", message: `frame exceeds the maximum of ${maxBytes} bytes` };
  let value: unknown;
  try {
    value = JSON.parse(frame);
  } catch {
    return { kind: "invalid", message: "text frame is not valid JSON" };
  }
  const type = (value as { type?: unknown } | null)?.type;
  if (type === "stop_recording") {
    const r = check("StopRecordingMessage", value);
    return r.ok ? { kind: "stop" } : { kind: "invalid", message: `invalid stop_recording: ${r.errors.join("; ")}` };
  }
  if (type === "audio_chunk") {
    const r = check("AudioChunkMessage", value);
    if (!r.ok) return { kind: "invalid", message: `invalid audio_chunk: ${r.errors.join("; ")}` };
    const chunk = (value as { data: { chunk: string } }).data.chunk;
    if (!BASE64.test(chunk)) return { kind: "invalid", message: "invalid audio_chunk: data.chunk is not base64" };
    const bytes = Buffer.from(chunk, "base64");
    if (bytes.byteLength > maxBytes) return { kind: "invalid", message: `audio chunk of ${bytes.byteLength} bytes exceeds the maximum of ${maxBytes}` };
    return { kind: "audio", bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
  }
  return { kind: "invalid", message: `unknown message type ${JSON.stringify(type ?? null)}` };
}
