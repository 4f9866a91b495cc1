/**
 * The session listing filter as a pure function: what `listSessions` selects, for stores that
 * cannot express it in a query (Redis) and for tests that check a store against it.
 *
 * Bounds on `createdAt`: `createdFrom` (inclusive), `createdTo`, `after` and `beforeDate`
 * (exclusive); the keyset cursor `before` keeps what is strictly older by (createdAt, seq).
 * `statuses` keeps the listed statuses (an empty list keeps all). Each `customMetadata` entry must
 * match the stored metadata's value under that key:
 *   - an object or array matches a stored value with the same JSON text;
 *   - a string (query-string values are strings) matches a stored string equal to it, or a number
 *     or boolean whose text form (`String(v)`) equals it;
 *   - a number or boolean matches the same number or boolean;
 *   - null (or undefined) matches a missing key, a null value, and sessions without metadata.
 * Keys are looked up as whole names (no paths); metadata that is not an object has no keys.
 */
import type { SessionListQuery, SessionRecord } from "./types.ts";

export type ListBounds = Pick<SessionListQuery, "before" | "createdFrom" | "createdTo" | "after" | "beforeDate">;
export type ListFilters = Pick<SessionListQuery, "statuses" | "customMetadata">;

/** The value stored under `key`, or undefined when the metadata has no such key. */
function metadataValue(metadata: unknown, key: string): unknown {
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return undefined;
  return Object.hasOwn(metadata, key) ? (metadata as Record<string, unknown>)[key] : undefined;
}

/** Whether one stored metadata value (undefined = key missing) matches one wanted value. */
function metadataValueMatches(stored: unknown, wanted: unknown): boolean {
  if (wanted === null || wanted === undefined) return stored === null || stored === undefined;
  if (typeof wanted === "object") return stored !== null && typeof stored === "object" && JSON.stringify(stored) === JSON.stringify(wanted);
  if (typeof wanted === "string") {
    if (typeof stored === "string") return stored === wanted;
    if (typeof stored === "number" || typeof stored === "boolean") return String(stored) === wanted;
    return false;
  }
  return stored === wanted;
}

function matchesCustomMetadata(metadata: unknown, wanted: Record<string, unknown> | undefined): boolean {
  for (const [key, value] of Object.entries(wanted ?? {})) {
    if (!metadataValueMatches(metadataValue(metadata, key), value)) return false;
  }
  return true;
}

/** Whether the query filters on stored fields beyond `createdAt` and `seq`. */
export function hasRecordFilters(q: ListFilters): boolean {
  return !!q.statuses?.length || Object.keys(q.customMetadata ?? {}).length > 0;
}

/** The date bounds and the cursor. */
function withinListBounds(createdAt: number, seq: number, q: ListBounds): boolean {
  if (q.before && !(createdAt < q.before.createdAt || (createdAt === q.before.createdAt && seq < q.before.seq))) return false;
  if (q.createdFrom !== undefined && !(createdAt >= q.createdFrom)) return false;
  if (q.createdTo !== undefined && !(createdAt < q.createdTo)) return false;
  if (q.after !== undefined && !(createdAt > q.after)) return false;
  if (q.beforeDate !== undefined && !(createdAt < q.beforeDate)) return false;
  return true;
}

/** Status and custom metadata filters. */
export function matchesListFilters(rec: Pick<SessionRecord, "status" | "customMetadata">, q: ListFilters): boolean {
  if (q.statuses?.length && !q.statuses.includes(rec.status)) return false;
  return matchesCustomMetadata(rec.customMetadata, q.customMetadata);
}

/** Whether a session belongs in a listing (all conditions but limit and offset). */
export function matchesListQuery(rec: Pick<SessionRecord, "createdAt" | "seq" | "status" | "customMetadata">, q: Omit<SessionListQuery, "limit" | "offset">): boolean {
  return withinListBounds(rec.createdAt, rec.seq, q) && matchesListFilters(rec, q);
}

/** Listing order: newest first, ties by insertion order (newest first). */
export function compareListOrder(a: Pick<SessionRecord, "createdAt" | "seq">, b: Pick<SessionRecord, "createdAt" | "seq">): number {
  return b.createdAt - a.createdAt || b.seq - a.seq;
}
