/** Sessions whose URL expired unused end in `error` and stop counting against the concurrency limit. */
import type { SessionRecord, Store } from "../store/types.ts";
import { URL_TTL_MS } from "./limits.ts";

const URL_EXPIRED = { code: "url_expired", message: "the WebSocket URL was not connected to within 60 seconds" };

function isExpiredUnused(s: SessionRecord, now: number): boolean {
  return s.status === "queued" && s.connectedAt === null && now - s.createdAt >= URL_TTL_MS;
}

/** Marks one session expired when it is; returns the record as it now stands. */
export async function settleExpiry(store: Store, s: SessionRecord, now: number): Promise<SessionRecord> {
  if (!isExpiredUnused(s, now)) return s;
  const patch = { status: "error" as const, error: URL_EXPIRED, endedAt: s.createdAt + URL_TTL_MS, updatedAt: now };
  await store.updateSession(s.id, patch);
  return { ...s, ...patch };
}

/** Marks every expired unused session; run periodically. */
export async function sweepExpired(store: Store, now: number): Promise<number> {
  const expired = await store.expiredUnusedSessions(now, URL_TTL_MS);
  for (const s of expired) await settleExpiry(store, s, now);
  return expired.length;
}
