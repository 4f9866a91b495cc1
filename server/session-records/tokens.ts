/** Single-session WebSocket tokens: random, unguessable, stored only as a hash. */
import { randomBytes } from "node:crypto";
import { hashSecret } from "../store/records.ts";

export function newSessionToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashSecret(token) };
}

export const tokenHash = hashSecret;

/** The WebSocket URL of a session: PUBLIC_URL with a ws(s) scheme, `/v2/live?token=…`. */
export function sessionUrl(publicUrl: string, token: string): string {
  const base = publicUrl.replace(/^http(s?):\/\//, (_m, s: string) => `ws${s}://`);
  return `${base}/v2/live?token=${encodeURIComponent(token)}`;
}
