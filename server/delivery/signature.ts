/**
 * Callback request signing.
 *
 * Header `x-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * Receivers recompute the HMAC over the raw request body, compare in constant
 * time and reject timestamps outside their tolerance (replay protection).
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** Name of the signature header. */
export const SIGNATURE_HEADER = "x-signature";
/** Name of the per-message id header (stable across retries, for deduplication). */
export const CALLBACK_ID_HEADER = "x-callback-id";

function hmacHex(secret: string, timestamp: number, body: string | Uint8Array): string {
  const mac = createHmac("sha256", secret);
  mac.update(`${timestamp}.`);
  mac.update(body);
  return mac.digest("hex");
}

/** Builds the signature header value for a body at the given unix time (seconds). */
export function signCallback(secret: string, body: string | Uint8Array, timestampS: number): string {
  const t = Math.floor(timestampS);
  return `t=${t},v1=${hmacHex(secret, t, body)}`;
}

/**
 * Verifies a signature header against the raw body. Returns false (never
 * throws) for malformed headers, wrong signatures, or timestamps further than
 * `toleranceS` seconds from `nowS`.
 */
export function verifyCallbackSignature(
  secret: string,
  header: string | null | undefined,
  body: string | Uint8Array,
  toleranceS = 300,
  nowS: number = Date.now() / 1000,
): boolean {
  if (typeof header !== "string") return false;
  let t: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t" && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (key === "v1" && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (t === undefined || candidates.length === 0) return false;
  if (Math.abs(nowS - t) > toleranceS) return false;
  const expected = Buffer.from(hmacHex(secret, t, body), "hex");
  return candidates.some((candidate) => timingSafeEqual(expected, Buffer.from(candidate, "hex")));
}
