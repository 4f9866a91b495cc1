/**
 * Request bodies read with a byte cap: a declared `content-length` above the cap is refused before
 * any byte is read, and a streamed (chunked) body stops being read as soon as it passes the cap, so
 * an oversized body never sits in memory. Refusals are 413 with the spec's error body.
 */
import { ApiError, errorBody, newRequestId } from "./errors.ts";

/** Largest request body accepted, in bytes. */
const MAX_BODY_BYTES = 1 << 20;

const bodyTooLarge = (max = MAX_BODY_BYTES) => new ApiError(413, `request body too large: at most ${max} bytes are accepted`);

/** True when the request declares a body longer than `max` bytes. */
function declaresTooLarge(headers: Headers, max = MAX_BODY_BYTES): boolean {
  const length = headers.get("content-length");
  return length !== null && /^[0-9]+$/.test(length.trim()) && Number(length.trim()) > max;
}

/** The body as UTF-8 text, read at most `max` bytes far; throws the 413 ApiError beyond. */
export async function readCappedText(request: Request, max = MAX_BODY_BYTES): Promise<string> {
  if (declaresTooLarge(request.headers, max)) throw bodyTooLarge(max);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw bodyTooLarge(max);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks, total));
}

/**
 * The 413 answer (spec error body, `x-request-id`) for a request whose declared length is over the
 * cap, or null. The server applies it to every request before routing, in place of Bun's own 413
 * (which has no body): Bun's `maxRequestBodySize` is set above any real body for that reason.
 */
export function refuseDeclaredOversize(request: Request, max = MAX_BODY_BYTES): Response | null {
  if (!declaresTooLarge(request.headers, max)) return null;
  const requestId = newRequestId();
  const body = errorBody(413, new URL(request.url).pathname, requestId, bodyTooLarge(max));
  return new Response(JSON.stringify(body), {
    status: 413,
    headers: { "content-type": "application/json", "x-request-id": requestId, connection: "close" },
  });
}
