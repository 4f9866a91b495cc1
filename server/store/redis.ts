/**
 * Store of distributed mode on Redis, shared by every gateway: any gateway sees every account, key
 * and session, and the per-account limit of open sessions holds across gateways. Behaves like
 * `SqliteStore` (the store tests run one suite against both).
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
 * Every write that touches several keys is one Lua script (atomic). Scripts that start from a session
 * id find the account's keys from the session hash, so the layout needs one Redis (or a primary with
 * replicas), not Redis Cluster.
 *
 * Open sessions: an unused URL's expiry is fixed when the session is created, from the `urlTtlMs`
 * of that call; `countOpenSessions` counts members scored after `now`. A session that goes back to
 * `queued` without a connection is not counted again.
 *
 * Session patches of one process are applied in issue order: they are serialised per session, and a
 * patch whose connection broke before Redis answered is sent again (a patch is a plain field write,
 * so applying it twice is harmless). While Redis is unreachable a patch waits (node-redis keeps an
 * offline queue) and is applied after reconnection; it fails only on a command error or once the
 * store is closed.
 */
import { randomUUID } from "node:crypto";
import { DEFAULT_PREFIX, RedisKeys } from "../../common/redis/keys.ts";
import { RESP_TYPES } from "redis";
import { connectRedis, dropClient, isReplyError, sleep, type RedisClient } from "../../common/redis/client.ts";
import { settleWithin } from "../../common/timeout.ts";
import { hasRecordFilters, matchesListFilters } from "./list-filter.ts";
import { hashSecret, newAccount, newKey } from "./records.ts";
import {
  type Account,
  type ApiKeyRecord,
  type CheckpointWrite,
  type CreateSessionOutcome,
  type Plan,
  type Scope,
  type SessionListQuery,
  type SessionRecord,
  type Store,
  type StoredCheckpoint,
} from "./types.ts";

/** Stored LLM callbacks kept per account (newest first). */
const LLM_CALLBACKS_KEPT = 1000;
/** How long `close()` waits for pending writes, then for the connection to drain. */
const CLOSE_WAIT_MS = 2000;
/** A checkpoint nobody wrote for this long is dropped (its session ended long ago or was lost). */
const CHECKPOINT_TTL_MS = 24 * 3600 * 1000;
const BINARY = { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } } as const;

const seg = {
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

const SEQ_DIGITS = 16;
const listMember = (seq: number, id: string) => `${String(seq).padStart(SEQ_DIGITS, "0")}:${id}`;

const sessionFields = [
  "id", "seq", "accountId", "requestId", "status", "createdAt", "updatedAt", "connectedAt", "endedAt", "tokenHash", "model", "region",
  "requestedOptions", "appliedOptions", "customMetadata", "result", "error", "recordAudio", "recordingPath", "audioDurationS", "resumeState",
] as const satisfies readonly (keyof SessionRecord)[];
/** Fields a patch may set (the others are fixed at insertion). */
const patchableFields: ReadonlySet<string> = new Set([
  "status", "updatedAt", "connectedAt", "endedAt", "tokenHash", "model", "region", "requestedOptions", "appliedOptions",
  "customMetadata", "result", "error", "recordAudio", "recordingPath", "audioDurationS", "resumeState",
]);
const keyFields = ["id", "accountId", "name", "prefix", "hash", "scopes", "allowedCidrs", "createdAt", "revokedAt"] as const satisfies readonly (keyof ApiKeyRecord)[];

// ── Lua ─────────────────────────────────────────────────────────────────────────────────────────

/** Decodes a JSON-encoded string field (nil when absent or not a string). */
const luaStr = `local function str(raw)
  if not raw then return nil end
  local ok, v = pcall(cjson.decode, raw)
  if ok and type(v) == 'string' then return v end
  return nil
end
`;

/**
 * KEYS: account, session, token, account-sessions, account-open, unused-urls, session-seq.
 * ARGV: now, limit ('' = none), open score ('' = not open), createdAt, id, unused ('1'/'0'), field/value pairs…
 * Returns the new seq, 0 at the limit, -1 no account, -2 id taken, -3 token taken.
 */
const CREATE_SESSION = `
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', ARGV[1])
if ARGV[2] ~= '' and redis.call('ZCARD', KEYS[5]) >= tonumber(ARGV[2]) then return 0 end
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -2 end
if redis.call('EXISTS', KEYS[3]) == 1 then return -3 end
local seq = redis.call('INCR', KEYS[7])
redis.call('HSET', KEYS[2], 'seq', tostring(seq), unpack(ARGV, 7))
redis.call('SET', KEYS[3], ARGV[5])
redis.call('ZADD', KEYS[4], ARGV[4], string.format('%0${SEQ_DIGITS}d', seq) .. ':' .. ARGV[5])
if ARGV[3] ~= '' then redis.call('ZADD', KEYS[5], ARGV[3], ARGV[5]) end
if ARGV[6] == '1' then redis.call('ZADD', KEYS[6], ARGV[4], ARGV[5]) end
return seq
`;

/**
 * KEYS: session, unused-urls. ARGV: base, id, reindex ('1' when status or connectedAt changes),
 * token patched ('1'/'0'), the new token hash, field/value pairs…
 * Returns 1 applied, 0 no such session (nothing written), -1 token hash taken by another session.
 */
const UPDATE_SESSION = `${luaStr}
local base, id = ARGV[1], ARGV[2]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[4] == '1' then
  local old = str(redis.call('HGET', KEYS[1], 'tokenHash'))
  if old ~= ARGV[5] then
    local newKey = base .. '${seg.token}' .. ARGV[5]
    local holder = redis.call('GET', newKey)
    if holder and holder ~= id then return -1 end
    if old then
      local oldKey = base .. '${seg.token}' .. old
      if redis.call('GET', oldKey) == id then redis.call('DEL', oldKey) end
    end
    redis.call('SET', newKey, id)
  end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
if ARGV[3] == '1' then
  local v = redis.call('HMGET', KEYS[1], 'status', 'connectedAt', 'accountId', 'createdAt')
  local status = v[1]
  local connected = v[2] and v[2] ~= 'null'
  local account = str(v[3])
  if account then
    local open = base .. '${seg.accountOpen}' .. account
    if status == '"done"' or status == '"error"' then
      redis.call('ZREM', open, id)
    elseif status == '"processing"' or connected then
      redis.call('ZADD', open, '+inf', id)
    end
  end
  if status == '"queued"' and not connected and tonumber(v[4]) then
    redis.call('ZADD', KEYS[2], v[4], id)
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
return 1
`;

/** KEYS: session, unused-urls. ARGV: base, id. */
const DELETE_SESSION = `${luaStr}
local base, id = ARGV[1], ARGV[2]
local v = redis.call('HMGET', KEYS[1], 'accountId', 'tokenHash', 'seq')
if not v[1] then return 0 end
redis.call('DEL', KEYS[1])
local account, token, seq = str(v[1]), str(v[2]), tonumber(v[3])
if token then
  local tk = base .. '${seg.token}' .. token
  if redis.call('GET', tk) == id then redis.call('DEL', tk) end
end
if account then
  if seq then redis.call('ZREM', base .. '${seg.accountSessions}' .. account, string.format('%0${SEQ_DIGITS}d', seq) .. ':' .. id) end
  redis.call('ZREM', base .. '${seg.accountOpen}' .. account, id)
end
redis.call('ZREM', KEYS[2], id)
return 1
`;

/** KEYS: an index string key. ARGV: hash key prefix. The hash its value names, or nil. */
const FOLLOW_INDEX = `
local id = redis.call('GET', KEYS[1])
if not id then return nil end
return redis.call('HGETALL', ARGV[1] .. id)
`;

/** KEYS: account, accounts. ARGV: createdAt, id, field/value pairs… Returns 0 when the id is taken. */
const CREATE_ACCOUNT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
return 1
`;

/** KEYS: account. ARGV: number of fields to delete, those fields, field/value pairs… The hash after, or nil. */
const UPDATE_PLAN = `
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
local d = tonumber(ARGV[1])
if d > 0 then redis.call('HDEL', KEYS[1], unpack(ARGV, 2, 1 + d)) end
if #ARGV > 1 + d then redis.call('HSET', KEYS[1], unpack(ARGV, 2 + d)) end
return redis.call('HGETALL', KEYS[1])
`;

/** KEYS: account. ARGV: seconds. Written with 17 significant digits so the double survives exactly. */
const CONSUME_CREDITS = `
local raw = redis.call('HGET', KEYS[1], 'plan.creditsSeconds')
if not raw or raw == 'null' then return 0 end
local n = tonumber(raw)
if not n then return 0 end
redis.call('HSET', KEYS[1], 'plan.creditsSeconds', string.format('%.17g', n - tonumber(ARGV[1])))
return 1
`;

/**
 * KEYS: account, key, key-hash, account-keys. ARGV: createdAt, key id, field/value pairs…
 * Returns 1, -1 no account, -2 secret already stored, -3 id taken.
 */
const CREATE_KEY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('EXISTS', KEYS[3]) == 1 then return -2 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -3 end
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
redis.call('SET', KEYS[3], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[1], ARGV[2])
return 1
`;

/** KEYS: key. ARGV: revokedAt (JSON). Returns 1 when it revoked the key. */
const REVOKE_KEY = `
local r = redis.call('HGET', KEYS[1], 'revokedAt')
if r ~= 'null' then return 0 end
redis.call('HSET', KEYS[1], 'revokedAt', ARGV[1])
return 1
`;

/** KEYS: account, callbacks list. ARGV: entry, cap. Returns 0 without the account. */
const STORE_CALLBACK = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
return 1
`;

// ── encoding ────────────────────────────────────────────────────────────────────────────────────

type Hash = Record<string, string>;

/** JSON of a value; undefined (and what JSON cannot write) is stored as null, like SQLite's NULL. */
const enc = (v: unknown): string => (v === undefined ? "null" : (JSON.stringify(v) ?? "null"));
const dec = (raw: string | undefined): any => (raw === undefined ? null : JSON.parse(raw));

function flatToHash(reply: unknown): Hash | null {
  if (!Array.isArray(reply) || reply.length === 0) return null;
  const h: Hash = {};
  for (let i = 0; i + 1 < reply.length; i += 2) h[String(reply[i])] = String(reply[i + 1]);
  return h;
}

function toSession(h: Hash | null): SessionRecord | null {
  if (!h || h.id === undefined) return null;
  const r: Record<string, unknown> = {};
  for (const f of sessionFields) r[f] = dec(h[f]);
  r.recordAudio = !!r.recordAudio;
  return r as unknown as SessionRecord;
}

function toAccount(h: Hash | null): Account | null {
  if (!h || h.id === undefined) return null;
  const plan: Record<string, unknown> = {};
  for (const [field, raw] of Object.entries(h)) if (field.startsWith("plan.")) plan[field.slice(5)] = JSON.parse(raw);
  return { id: dec(h.id), name: dec(h.name), createdAt: dec(h.createdAt), plan: plan as unknown as Plan, callbackSecret: dec(h.callbackSecret) };
}

function toKey(h: Hash | null): ApiKeyRecord | null {
  if (!h || h.id === undefined) return null;
  const r: Record<string, unknown> = {};
  for (const f of keyFields) r[f] = dec(h[f]);
  return r as unknown as ApiKeyRecord;
}

function planPairs(plan: Partial<Plan>): { set: string[]; unset: string[] } {
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
function bound(n: number, exclusive: boolean): string {
  if (n === Infinity) return "+inf";
  if (n === -Infinity) return "-inf";
  return (exclusive ? "(" : "") + String(n);
}

/** The limit for the script: '' for none (SQLite: a count is never >= NaN or +Infinity). */
function limitArg(limit: number): string {
  if (Number.isNaN(limit) || limit === Infinity) return "";
  return limit === -Infinity ? "0" : String(limit);
}

const noop = () => {};

export interface RedisStoreOptions {
  url: string;
  /** Key prefix shared with the rest of distributed mode (default `stt`). */
  prefix?: string;
  /** Connection errors (the client reconnects by itself). */
  onError?: (e: Error) => void;
}

export class RedisStore implements Store {
  /** `{prefix}:store:`, the start of every key of the store. */
  readonly base: string;
  private closed = false;
  /** Tail of each session's pending patches, so they apply in issue order. */
  private readonly patches = new Map<string, Promise<void>>();
  /** Tail of each session's pending checkpoint writes. */
  private readonly checkpoints = new Map<string, Promise<void>>();

  private constructor(
    readonly client: RedisClient,
    readonly prefix: string,
  ) {
    this.base = new RedisKeys(prefix).store;
  }

  static async connect(opts: RedisStoreOptions): Promise<RedisStore> {
    const { prefix } = new RedisKeys(opts.prefix ?? DEFAULT_PREFIX);
    const client = await connectRedis({ url: opts.url, name: `${prefix}:store`, onError: opts.onError });
    return new RedisStore(client, prefix);
  }

  private k(segment: string, id = ""): string {
    return this.base + segment + id;
  }

  private async script(script: string, keys: string[], args: string[]): Promise<unknown> {
    // EVAL rather than EVALSHA: a NOSCRIPT retry would reorder a command behind later ones.
    return this.client.eval(script, { keys, arguments: args });
  }

  // ── accounts ──────────────────────────────────────────────────────────────────────────────────

  async createAccount(input: { name: string; plan?: Partial<Plan>; id?: string }): Promise<Account> {
    const account = newAccount(input);
    const pairs = ["id", enc(account.id), "name", enc(account.name), "createdAt", enc(account.createdAt), "callbackSecret", enc(account.callbackSecret)];
    pairs.push(...planPairs(account.plan).set);
    const created = await this.script(CREATE_ACCOUNT, [this.k(seg.account, account.id), this.k(seg.accounts)], [String(account.createdAt), account.id, ...pairs]);
    if (created !== 1) throw new Error(`account ${account.id} already exists`);
    return account;
  }

  async getAccount(id: string): Promise<Account | null> {
    return toAccount((await this.client.hGetAll(this.k(seg.account, id))) as Hash);
  }

  async listAccounts(): Promise<Account[]> {
    const ids = await this.client.zRange(this.k(seg.accounts), 0, -1);
    const hashes = await Promise.all(ids.map((id) => this.client.hGetAll(this.k(seg.account, id))));
    return hashes.map((h) => toAccount(h as Hash)).filter((a): a is Account => a !== null);
  }

  async updatePlan(accountId: string, plan: Partial<Plan>): Promise<Account> {
    const { set, unset } = planPairs(plan);
    const reply = await this.script(UPDATE_PLAN, [this.k(seg.account, accountId)], [String(unset.length), ...unset, ...set]);
    const account = toAccount(flatToHash(reply));
    if (!account) throw new Error(`no account ${accountId}`);
    return account;
  }

  async consumeCredits(accountId: string, seconds: number): Promise<void> {
    await this.script(CONSUME_CREDITS, [this.k(seg.account, accountId)], [String(seconds)]);
  }

  // ── keys ──────────────────────────────────────────────────────────────────────────────────────

  async createKey(input: { accountId: string; name?: string; scopes?: Scope[]; allowedCidrs?: string[]; secret?: string }): Promise<{ record: ApiKeyRecord; secret: string }> {
    const { record, secret } = newKey(input);
    const pairs = keyFields.flatMap((f) => [f, enc(record[f])]);
    const outcome = await this.script(
      CREATE_KEY,
      [this.k(seg.account, record.accountId), this.k(seg.key, record.id), this.k(seg.keyHash, record.hash), this.k(seg.accountKeys, record.accountId)],
      [String(record.createdAt), record.id, ...pairs],
    );
    if (outcome === -1) throw new Error(`no account ${record.accountId}`);
    if (outcome === -2) throw new Error("an API key with this secret already exists");
    if (outcome !== 1) throw new Error(`API key id ${record.id} already exists`);
    return { record, secret };
  }

  async findKeyBySecret(secret: string): Promise<ApiKeyRecord | null> {
    const key = toKey(flatToHash(await this.script(FOLLOW_INDEX, [this.k(seg.keyHash, hashSecret(secret))], [this.k(seg.key)])));
    return key && key.revokedAt === null ? key : null;
  }

  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const ids = await this.client.zRange(this.k(seg.accountKeys, accountId), 0, -1);
    const hashes = await Promise.all(ids.map((id) => this.client.hGetAll(this.k(seg.key, id))));
    return hashes.map((h) => toKey(h as Hash)).filter((k): k is ApiKeyRecord => k !== null);
  }

  async revokeKey(keyId: string, now: number): Promise<boolean> {
    return (await this.script(REVOKE_KEY, [this.k(seg.key, keyId)], [enc(now)])) === 1;
  }

  // ── sessions ──────────────────────────────────────────────────────────────────────────────────

  async createSession(rec: SessionRecord, limit: number, now: number, urlTtlMs: number): Promise<CreateSessionOutcome> {
    const ended = rec.status === "done" || rec.status === "error";
    const connected = rec.connectedAt !== null && rec.connectedAt !== undefined;
    const openScore = ended ? "" : rec.status === "processing" || connected ? "+inf" : bound(rec.createdAt + urlTtlMs, false);
    const unused = rec.status === "queued" && !connected;
    const pairs = sessionFields.filter((f) => f !== "seq").flatMap((f) => [f, enc(rec[f])]);
    const outcome = await this.script(
      CREATE_SESSION,
      [
        this.k(seg.account, rec.accountId),
        this.k(seg.session, rec.id),
        this.k(seg.token, rec.tokenHash),
        this.k(seg.accountSessions, rec.accountId),
        this.k(seg.accountOpen, rec.accountId),
        this.k(seg.unused),
        this.k(seg.seq),
      ],
      [bound(now, false), limitArg(limit), openScore, bound(rec.createdAt, false), rec.id, unused ? "1" : "0", ...pairs],
    );
    if (outcome === 0) return { ok: false, reason: "concurrency_limit" };
    if (outcome === -1) throw new Error(`no account ${rec.accountId}`);
    if (outcome === -2) throw new Error(`session ${rec.id} already exists`);
    if (outcome === -3) throw new Error("a session with this token hash already exists");
    return { ok: true };
  }

  async countOpenSessions(accountId: string, now: number, _urlTtlMs: number): Promise<number> {
    return this.client.zCount(this.k(seg.accountOpen, accountId), bound(now, true), "+inf");
  }

  async getSession(accountId: string, id: string): Promise<SessionRecord | null> {
    const s = await this.getSessionById(id);
    return s && s.accountId === accountId ? s : null;
  }

  async getSessionById(id: string): Promise<SessionRecord | null> {
    return toSession((await this.client.hGetAll(this.k(seg.session, id))) as Hash);
  }

  async getSessionByTokenHash(tokenHash: string): Promise<SessionRecord | null> {
    return toSession(flatToHash(await this.script(FOLLOW_INDEX, [this.k(seg.token, tokenHash)], [this.k(seg.session)])));
  }

  async runningSessions(): Promise<SessionRecord[]> {
    const out: SessionRecord[] = [];
    for (const accountId of await this.client.zRange(this.k(seg.accounts), 0, -1)) {
      // Connected or processing sessions are the open ones scored +inf.
      const ids = await this.client.zRange(this.k(seg.accountOpen, accountId), "+inf", "+inf", { BY: "SCORE" });
      for (const id of ids) {
        const s = await this.getSessionById(id);
        if (s && (s.status === "processing" || (s.status === "queued" && s.connectedAt !== null))) out.push(s);
      }
    }
    return out;
  }

  async listSessions(accountId: string, q: SessionListQuery): Promise<SessionRecord[]> {
    // SQLite: a negative LIMIT means none, a negative OFFSET counts as 0.
    const limit = q.limit < 0 ? Infinity : q.limit;
    let skip = Math.max(0, q.offset);
    if (!(limit > 0)) return [];
    const bounds = [q.before?.createdAt, q.before?.seq, q.createdFrom, q.createdTo, q.after, q.beforeDate];
    if (bounds.some((b) => b !== undefined && Number.isNaN(b))) return [];

    // Lower bound: createdFrom (inclusive) and after (exclusive), the tighter one.
    let min = "-inf";
    if (q.after !== undefined && (q.createdFrom === undefined || q.after >= q.createdFrom)) min = bound(q.after, true);
    else if (q.createdFrom !== undefined) min = bound(q.createdFrom, false);
    // Upper bound: the scan position. `member` set: at `score`, only members below it remain.
    const exclusiveTop = Math.min(q.createdTo ?? Infinity, q.beforeDate ?? Infinity);
    let top: { score: number; exclusive: boolean; member: string | null } = { score: exclusiveTop, exclusive: exclusiveTop !== Infinity, member: null };
    if (q.before && q.before.createdAt < exclusiveTop) {
      // At the cursor's createdAt only seq < before.seq remain: members below `<ceil(seq)>:` (seqs are integers from 1).
      const { createdAt, seq } = q.before;
      if (seq === Infinity) top = { score: createdAt, exclusive: false, member: null };
      else if (seq <= 1) top = { score: createdAt, exclusive: true, member: null };
      else top = { score: createdAt, exclusive: false, member: `${String(Math.ceil(seq)).padStart(SEQ_DIGITS, "0")}:` };
    }

    const key = this.k(seg.accountSessions, accountId);
    const filtered = hasRecordFilters(q);
    const ids: string[] = [];
    while (ids.length < limit) {
      const wanted = skip + (limit - ids.length);
      const count = filtered ? Math.min(500, Math.max(32, wanted)) : Math.min(1000, Math.max(16, wanted));
      const at = top;
      const batch = await this.client.zRangeWithScores(key, bound(at.score, at.exclusive), min, { BY: "SCORE", REV: true, LIMIT: { offset: 0, count } });
      const exhausted = batch.length < count;
      let entries: { value: string; score: number }[] = batch;
      if (!exhausted && batch[0]!.score === batch[batch.length - 1]!.score) {
        // A run of equal createdAt as long as the batch: take the whole run, then continue below it.
        const s = batch[0]!.score;
        entries = (await this.client.zRange(key, bound(s, false), bound(s, false), { BY: "SCORE", REV: true })).map((value) => ({ value, score: s }));
        top = { score: s, exclusive: true, member: null };
      } else if (batch.length) {
        const last = batch[batch.length - 1]!;
        top = { score: last.score, exclusive: false, member: last.value };
      }
      if (at.member !== null) entries = entries.filter((e) => !(e.score === at.score && e.value >= at.member!));
      const candidates = entries.map((e) => e.value.slice(SEQ_DIGITS + 1));
      let kept = candidates;
      if (filtered) {
        const fields = await Promise.all(candidates.map((id) => this.client.hmGet(this.k(seg.session, id), ["status", "customMetadata"])));
        kept = candidates.filter((_, i) => {
          const [status, metadata] = fields[i]!;
          return status != null && matchesListFilters({ status: dec(status), customMetadata: dec(metadata ?? undefined) }, q);
        });
      }
      for (const id of kept) {
        if (ids.length >= limit) break;
        if (skip > 0) skip--;
        else ids.push(id);
      }
      if (exhausted) break;
    }
    const records = await Promise.all(ids.map((id) => this.getSessionById(id)));
    return records.filter((r): r is SessionRecord => r !== null);
  }

  updateSession(id: string, patch: Partial<Omit<SessionRecord, "id" | "accountId" | "createdAt">>): Promise<void> {
    const pairs: string[] = [];
    let reindex = false;
    let token: string | null = null;
    for (const [field, value] of Object.entries(patch)) {
      if (!patchableFields.has(field)) return Promise.reject(new Error(`unknown session field ${field}`));
      if (field === "tokenHash") {
        if (typeof value !== "string") return Promise.reject(new Error("tokenHash must be a string"));
        token = value;
      }
      pairs.push(field, enc(value));
      if (field === "status" || field === "connectedAt") reindex = true;
    }
    if (!pairs.length) return Promise.resolve();
    const args = [this.base, id, reindex ? "1" : "0", token === null ? "0" : "1", token ?? "", ...pairs];
    const previous = this.patches.get(id);
    const write = (previous ? previous.then(noop, noop) : Promise.resolve()).then(() => this.applyPatch(id, args));
    this.patches.set(id, write);
    const forget = () => {
      if (this.patches.get(id) === write) this.patches.delete(id);
    };
    write.then(forget, forget);
    return write;
  }

  /** One patch, sent again while the connection breaks before Redis answers. */
  private async applyPatch(id: string, args: string[]): Promise<void> {
    let outcome: unknown;
    for (let attempt = 0; ; attempt++) {
      try {
        outcome = await this.script(UPDATE_SESSION, [this.k(seg.session, id), this.k(seg.unused)], args);
        break;
      } catch (e) {
        if (isReplyError(e) || this.closed) throw e;
        await sleep(Math.min(50 * 2 ** Math.min(attempt, 5), 1000));
      }
    }
    if (outcome === -1) throw new Error("a session with this token hash already exists");
  }

  async deleteSession(id: string): Promise<void> {
    await this.script(DELETE_SESSION, [this.k(seg.session, id), this.k(seg.unused)], [this.base, id]);
    await this.dropCheckpoint(id);
  }

  // ── crash checkpoints ─────────────────────────────────────────────────────────────────────────

  private checkpointKeys(id: string): [state: string, audio: string, finals: string] {
    return [this.k(seg.checkpoint, id), this.k(seg.checkpointAudio, id), this.k(seg.checkpointFinals, id)];
  }

  /** One MULTI (atomic, and idempotent: fields are keyed by offset and index), in issue order per session. */
  saveCheckpoint(id: string, w: CheckpointWrite): Promise<void> {
    const previous = this.checkpoints.get(id);
    const write = (previous ? previous.then(noop, noop) : Promise.resolve()).then(() => this.retrying(async () => {
      await this.checkpointMulti(id, w).exec();
    }));
    this.checkpoints.set(id, write);
    const forget = () => {
      if (this.checkpoints.get(id) === write) this.checkpoints.delete(id);
    };
    write.then(forget, forget);
    return write;
  }

  private checkpointMulti(id: string, w: CheckpointWrite) {
    const [state, audio, finals] = this.checkpointKeys(id);
    const m = this.client.multi();
    if (w.reset) m.del([state, audio, finals]);
    if (w.dropAudio.length > 0) m.hDel(audio, w.dropAudio.map(String));
    if (w.audio.length > 0) m.hSet(audio, String(w.audioOffset), Buffer.from(w.audio.buffer, w.audio.byteOffset, w.audio.byteLength));
    if (w.finals.length > 0) m.hSet(finals, Object.fromEntries(w.finals.map((f, i) => [String(w.finalsFrom + i), JSON.stringify(f)])));
    m.set(state, JSON.stringify(w.state), { PX: CHECKPOINT_TTL_MS });
    m.pExpire(audio, CHECKPOINT_TTL_MS);
    m.pExpire(finals, CHECKPOINT_TTL_MS);
    return m;
  }

  /** Runs `op` again while the connection breaks before Redis answers (the op must be idempotent). */
  private async retrying<T>(op: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await op();
      } catch (e) {
        if (isReplyError(e) || this.closed) throw e;
        await sleep(Math.min(50 * 2 ** Math.min(attempt, 5), 1000));
      }
    }
  }

  async loadCheckpoint(id: string): Promise<StoredCheckpoint | null> {
    const [stateKey, audioKey, finalsKey] = this.checkpointKeys(id);
    const [state, audioFlat, finalsFlat] = await Promise.all([
      this.client.get(stateKey),
      this.client.sendCommand(["HGETALL", audioKey], BINARY) as Promise<Buffer[]>,
      this.client.sendCommand(["HGETALL", finalsKey]) as Promise<string[]>,
    ]);
    if (state === null) return null;
    const audio: StoredCheckpoint["audio"] = [];
    for (let i = 0; i + 1 < audioFlat.length; i += 2) audio.push({ offset: Number(audioFlat[i]!.toString()), bytes: new Uint8Array(audioFlat[i + 1]!) });
    audio.sort((a, b) => a.offset - b.offset);
    const finals: [number, unknown][] = [];
    for (let i = 0; i + 1 < finalsFlat.length; i += 2) finals.push([Number(finalsFlat[i]), JSON.parse(finalsFlat[i + 1]!)]);
    finals.sort((a, b) => a[0] - b[0]);
    return { state: JSON.parse(state), audio, finals: finals.map((f) => f[1]) };
  }

  async dropCheckpoint(id: string): Promise<void> {
    await this.client.del(this.checkpointKeys(id));
  }

  async expiredUnusedSessions(now: number, urlTtlMs: number): Promise<SessionRecord[]> {
    const cutoff = now - urlTtlMs;
    const ids = await this.client.zRange(this.k(seg.unused), "-inf", bound(cutoff, false), { BY: "SCORE" });
    const records = await Promise.all(ids.map((id) => this.getSessionById(id)));
    return records
      .filter((s): s is SessionRecord => s !== null && s.status === "queued" && s.connectedAt === null && s.createdAt <= cutoff)
      .sort((a, b) => a.seq - b.seq);
  }

  async storeLlmCallback(accountId: string, body: { request_id: string; customer_id: string; status: string; data: unknown }, now: number): Promise<void> {
    const entry = { id: randomUUID(), requestId: body.request_id, customerId: body.customer_id, status: body.status, data: body.data ?? null, createdAt: now };
    const stored = await this.script(STORE_CALLBACK, [this.k(seg.account, accountId), this.k(seg.accountCallbacks, accountId)], [enc(entry), String(LLM_CALLBACKS_KEPT)]);
    if (stored !== 1) throw new Error(`no account ${accountId}`);
  }

  /** Stored LLM callbacks of an account, newest first. */
  async llmCallbacks(accountId: string): Promise<{ id: string; requestId: string; customerId: string; status: string; data: unknown; createdAt: number }[]> {
    return (await this.client.lRange(this.k(seg.accountCallbacks, accountId), 0, -1)).map((raw) => JSON.parse(raw));
  }

  /** Waits a moment for pending patches, then closes the connection (dropping it if Redis does not answer). */
  async close(): Promise<void> {
    if (this.closed) return;
    await settleWithin(Promise.allSettled([...this.patches.values(), ...this.checkpoints.values()]), CLOSE_WAIT_MS);
    this.closed = true;
    await settleWithin(Promise.resolve().then(() => this.client.close()), CLOSE_WAIT_MS);
    dropClient(this.client);
  }
}
