/**
 * Store of distributed mode on Redis, shared by every gateway: any gateway sees every account, key
 * and session, and the per-account limit of open sessions holds across gateways. Behaves like
 * `SqliteStore` (the store tests run one suite against both).
 *
 * Key layout and record encoding: `redis-layout.ts`; the Lua scripts: `redis-scripts.ts`.
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
import { bound, dec, enc, flatToHash, keyFields, limitArg, listMember, listRange, patchableFields, planPairs, SEQ_DIGITS, seg, sessionFields, toAccount, toKey, toSession, type Hash } from "./redis-layout.ts";
import { CONSUME_CREDITS, CREATE_ACCOUNT, CREATE_KEY, CREATE_SESSION, DELETE_SESSION, FOLLOW_INDEX, REVOKE_KEY, STORE_CALLBACK, UPDATE_PLAN, UPDATE_SESSION } from "./redis-scripts.ts";
import type { Account, ApiKeyRecord, CheckpointWrite, CreateSessionOutcome, Plan, Scope, SessionListQuery, SessionRecord, Store, StoredCheckpoint } from "./types.ts";

/** Stored LLM callbacks kept per account (newest first). */
const LLM_CALLBACKS_KEPT = 1000;
/** How long `close()` waits for pending writes, then for the connection to drain. */
const CLOSE_WAIT_MS = 2000;
/** A checkpoint nobody wrote for this long is dropped (its session ended long ago or was lost). */
const CHECKPOINT_TTL_MS = 24 * 3600 * 1000;
const BINARY = { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } } as const;

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

    const range = listRange(q);
    const min = range.min;
    let top = range.top;

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
