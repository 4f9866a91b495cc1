/**
 * The Redis store's key layout and how records are written into its hashes (JSON-encoded fields).
 *
 * Key layout, under `{p}:store:` where `{p}` is the deployment prefix (default `stt`, as in
 * `common/redis/keys.ts`). Hash fields and list entries hold JSON-encoded values.
 *
 *   {p}:store:account:{id}                 hash: id, name, createdAt, callbackSecret, and one field
 *                                          `plan.<name>` per plan entry (so plan updates and credit
 *                                          consumption are single-field writes)
 *   {p}:store:accounts                     zset of account ids scored by createdAt (ties by id)
 *   {p}:store:key:{keyId}                  hash: the ApiKeyRecord fields (the secret is never stored)
 *   {p}:store:key-hash:{sha256}            string: key id of that secret hash (revoked keys keep theirs)
 *   {p}:store:account-keys:{accountId}     zset of key ids scored by createdAt (ties by id)
 *   {p}:store:session:{id}                 hash: the SessionRecord fields
 *   {p}:store:session-seq                  counter giving each inserted session its `seq`
 *   {p}:store:token:{tokenHash}            string: session id of that WebSocket token hash
 *   {p}:store:account-sessions:{accountId} zset of `<seq, 16 digits>:<id>` scored by createdAt:
 *                                          the listing, newest first by (createdAt, seq)
 *   {p}:store:account-open:{accountId}     zset of open session ids, scored by the moment the unused
 *                                          URL expires (createdAt + urlTtlMs) or +inf once connected
 *                                          or processing; ended sessions leave it
 *   {p}:store:unused-urls                  zset of queued never-connected session ids scored by createdAt
 *   {p}:store:account-llm-callbacks:{id}   list of stored LLM callbacks, newest first, capped
 *   {p}:store:checkpoint:{id}              string: a live session's crash checkpoint state (JSON)
 *   {p}:store:checkpoint-audio:{id}        hash: stream offset → raw audio chunk of that checkpoint
 *   {p}:store:checkpoint-finals:{id}       hash: index → final (JSON) of that checkpoint
 *                                          (the three expire CHECKPOINT_TTL_MS after their last write)
 *
 */
import type { Account, ApiKeyRecord, Plan, SessionListQuery, SessionRecord } from "./types.ts";
export const seg = {
  account: "account:",
  accounts: "accounts",
  key: "key:",
  keyHash: "key-hash:",
  accountKeys: "account-keys:",
  session: "session:",
  seq: "session-seq",
  token: "token:",
  accountSessions: "account-sessions:",
  accountOpen: "account-open:",
  unused: "unused-urls",
  accountCallbacks: "account-llm-callbacks:",
  checkpoint: "checkpoint:",
  checkpointAudio: "checkpoint-audio:",
  checkpointFinals: "checkpoint-finals:",
} as const;

export const SEQ_DIGITS = 16;
export const listMember = (seq: number, id: string) => `${String(seq).padStart(SEQ_DIGITS, "0")}:${id}`;

export const sessionFields = [
  "id", "seq", "accountId", "requestId", "status", "createdAt", "updatedAt", "connectedAt", "endedAt", "tokenHash", "model", "region",
  "requestedOptions", "appliedOptions", "customMetadata", "result", "error", "recordAudio", "recordingPath", "audioDurationS", "resumeState",
] as const satisfies readonly (keyof SessionRecord)[];
/** Fields a patch may set (the others are fixed at insertion). */
export const patchableFields: ReadonlySet<string> = new Set([
  "status", "updatedAt", "connectedAt", "endedAt", "tokenHash", "model", "region", "requestedOptions", "appliedOptions",
  "customMetadata", "result", "error", "recordAudio", "recordingPath", "audioDurationS", "resumeState",
]);
export const keyFields = ["id", "accountId", "name", "prefix", "hash", "scopes", "allowedCidrs", "createdAt", "revokedAt"] as const satisfies readonly (keyof ApiKeyRecord)[];

export type Hash = Record<string, string>;

/** JSON of a value; undefined (and what JSON cannot write) is stored as null, like SQLite's NULL. */
export const enc = (v: unknown): string => (v === undefined ? "null" : (JSON.stringify(v) ?? "null"));
export const dec = (raw: string | undefined): any => (raw === undefined ? null : JSON.parse(raw));

export function flatToHash(reply: unknown): Hash | null {
  if (!Array.isArray(reply) || reply.length === 0) return null;
  const h: Hash = {};
  for (let i = 0; i + 1 < reply.length; i += 2) h[String(reply[i])] = String(reply[i + 1]);
  return h;
}

export function toSession(h: Hash | null): SessionRecord | null {
  if (!h || h.id === undefined) return null;
  const r: Record<string, unknown> = {};
  for (const f of sessionFields) r[f] = dec(h[f]);
  r.recordAudio = !!r.recordAudio;
  return r as unknown as SessionRecord;
}

export function toAccount(h: Hash | null): Account | null {
  if (!h || h.id === undefined) return null;
  const plan: Record<string, unknown> = {};
  for (const [field, raw] of Object.entries(h)) if (field.startsWith("plan.")) plan[field.slice(5)] = JSON.parse(raw);
  return { id: dec(h.id), name: dec(h.name), createdAt: dec(h.createdAt), plan: plan as unknown as Plan, callbackSecret: dec(h.callbackSecret) };
}

export function toKey(h: Hash | null): ApiKeyRecord | null {
  if (!h || h.id === undefined) return null;
  const r: Record<string, unknown> = {};
  for (const f of keyFields) r[f] = dec(h[f]);
  return r as unknown as ApiKeyRecord;
}

export function planPairs(plan: Partial<Plan>): { set: string[]; unset: string[] } {
  const set: string[] = [];
  const unset: string[] = [];
  for (const [name, value] of Object.entries(plan)) {
    // JSON drops undefined entries, so SQLite's plan loses them: do the same.
    if (value === undefined) unset.push(`plan.${name}`);
    else set.push(`plan.${name}`, enc(value));
  }
  return { set, unset };
}

/** A Redis score bound. */
export function bound(n: number, exclusive: boolean): string {
  if (n === Infinity) return "+inf";
  if (n === -Infinity) return "-inf";
  return (exclusive ? "(" : "") + String(n);
}

/** The limit for the script: '' for none (SQLite: a count is never >= NaN or +Infinity). */
export function limitArg(limit: number): string {
  if (Number.isNaN(limit) || limit === Infinity) return "";
  return limit === -Infinity ? "0" : String(limit);
}

/** A listing's scan position, newest first: `member` set, at `score` only members below it remain. */
export interface ListTop {
  score: number;
  exclusive: boolean;
  member: string | null;
}

/** Where a listing of an account's sessions starts (`top`) and stops (`min`, a score bound). */
export function listRange(q: SessionListQuery): { min: string; top: ListTop } {
  // Lower bound: createdFrom (inclusive) and after (exclusive), the tighter one.
  let min = "-inf";
  if (q.after !== undefined && (q.createdFrom === undefined || q.after >= q.createdFrom)) min = bound(q.after, true);
  else if (q.createdFrom !== undefined) min = bound(q.createdFrom, false);
  // Upper bound: the scan position.
  const exclusiveTop = Math.min(q.createdTo ?? Infinity, q.beforeDate ?? Infinity);
  let top: ListTop = { score: exclusiveTop, exclusive: exclusiveTop !== Infinity, member: null };
  if (q.before && q.before.createdAt < exclusiveTop) {
    // At the cursor's createdAt only seq < before.seq remain: members below `<ceil(seq)>:` (seqs are integers from 1).
    const { createdAt, seq } = q.before;
    if (seq === Infinity) top = { score: createdAt, exclusive: false, member: null };
    else if (seq <= 1) top = { score: createdAt, exclusive: true, member: null };
    else top = { score: createdAt, exclusive: false, member: `${String(Math.ceil(seq)).padStart(SEQ_DIGITS, "0")}:` };
  }
  return { min, top };
}
