/** Embedded store on bun:sqlite (WAL) with numbered migrations. */
import { Database } from "bun:sqlite";
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { migrations } from "./migrations.ts";
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


type Row = Record<string, any>;

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
const parse = <T>(v: string | null): T | null => (v == null ? null : (JSON.parse(v) as T));

function rowToAccount(r: Row): Account {
  return { id: r.id, name: r.name, createdAt: r.created_at, plan: JSON.parse(r.plan), callbackSecret: r.callback_secret };
}

function rowToKey(r: Row): ApiKeyRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    prefix: r.prefix,
    hash: r.hash,
    scopes: JSON.parse(r.scopes),
    allowedCidrs: JSON.parse(r.allowed_cidrs),
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  };
}

function rowToSession(r: Row): SessionRecord {
  return {
    id: r.id,
    seq: r.seq,
    accountId: r.account_id,
    requestId: r.request_id,
    status: r.status,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    connectedAt: r.connected_at,
    endedAt: r.ended_at,
    tokenHash: r.token_hash,
    model: r.model,
    region: r.region,
    requestedOptions: JSON.parse(r.requested_options),
    appliedOptions: JSON.parse(r.applied_options),
    customMetadata: parse(r.custom_metadata),
    result: parse(r.result),
    error: parse(r.error),
    recordAudio: !!r.record_audio,
    recordingPath: r.recording_path,
    audioDurationS: r.audio_duration,
    resumeState: parse(r.resume_state),
  };
}

const sessionColumns: Record<string, string> = {
  status: "status",
  updatedAt: "updated_at",
  connectedAt: "connected_at",
  endedAt: "ended_at",
  tokenHash: "token_hash",
  model: "model",
  region: "region",
  requestedOptions: "requested_options",
  appliedOptions: "applied_options",
  customMetadata: "custom_metadata",
  result: "result",
  error: "error",
  recordAudio: "record_audio",
  recordingPath: "recording_path",
  audioDurationS: "audio_duration",
  resumeState: "resume_state",
};
const jsonColumns = new Set(["requestedOptions", "appliedOptions", "customMetadata", "result", "error", "resumeState"]);

/** Open sessions: connected and not ended, or unused with a URL still valid. */
const openSessionSql = `account_id = ?1 AND (status = 'processing' OR (status = 'queued' AND (connected_at IS NOT NULL OR created_at > ?2)))`;

export class SqliteStore implements Store {
  readonly db: Database;

  constructor(file: string) {
    if (file !== ":memory:") mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file, { create: true, strict: false });
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;");
    this.migrate();
  }

  static open(dataDir: string): SqliteStore {
    return new SqliteStore(path.join(dataDir, "live-stt.sqlite"));
  }

  private migrate(): void {
    const current = (this.db.query("PRAGMA user_version").get() as Row).user_version as number;
    for (let v = current; v < migrations.length; v++) {
      this.db.transaction(() => {
        this.db.exec(migrations[v]!);
        this.db.exec(`PRAGMA user_version = ${v + 1}`);
      })();
    }
  }

  async createAccount(input: { name: string; plan?: Partial<Plan>; id?: string }): Promise<Account> {
    const account = newAccount(input);
    this.db
      .query("INSERT INTO accounts (id, name, created_at, plan, callback_secret) VALUES (?, ?, ?, ?, ?)")
      .run(account.id, account.name, account.createdAt, JSON.stringify(account.plan), account.callbackSecret);
    return account;
  }

  async getAccount(id: string): Promise<Account | null> {
    return this.accountSync(id);
  }

  private accountSync(id: string): Account | null {
    const r = this.db.query("SELECT * FROM accounts WHERE id = ?").get(id) as Row | null;
    return r ? rowToAccount(r) : null;
  }

  async listAccounts(): Promise<Account[]> {
    return (this.db.query("SELECT * FROM accounts ORDER BY created_at, id").all() as Row[]).map(rowToAccount);
  }

  async updatePlan(accountId: string, plan: Partial<Plan>): Promise<Account> {
    const account = this.accountSync(accountId);
    if (!account) throw new Error(`no account ${accountId}`);
    const next = { ...account.plan, ...plan };
    this.db.query("UPDATE accounts SET plan = ? WHERE id = ?").run(JSON.stringify(next), accountId);
    return { ...account, plan: next };
  }

  async consumeCredits(accountId: string, seconds: number): Promise<void> {
    this.db
      .query(
        `UPDATE accounts SET plan = json_set(plan, '$.creditsSeconds', json_extract(plan, '$.creditsSeconds') - ?)
         WHERE id = ? AND json_extract(plan, '$.creditsSeconds') IS NOT NULL`,
      )
      .run(seconds, accountId);
  }

  async createKey(input: { accountId: string; name?: string; scopes?: Scope[]; allowedCidrs?: string[]; secret?: string }): Promise<{ record: ApiKeyRecord; secret: string }> {
    const { record, secret } = newKey(input);
    this.db
      .query("INSERT INTO api_keys (id, account_id, name, prefix, hash, scopes, allowed_cidrs, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .run(record.id, record.accountId, record.name, record.prefix, record.hash, JSON.stringify(record.scopes), JSON.stringify(record.allowedCidrs), record.createdAt);
    return { record, secret };
  }

  async findKeyBySecret(secret: string): Promise<ApiKeyRecord | null> {
    const r = this.db.query("SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL").get(hashSecret(secret)) as Row | null;
    return r ? rowToKey(r) : null;
  }

  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    return (this.db.query("SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id").all(accountId) as Row[]).map(rowToKey);
  }

  async revokeKey(keyId: string, now: number): Promise<boolean> {
    return this.db.query("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(now, keyId).changes > 0;
  }

  async createSession(rec: SessionRecord, limit: number, now: number, urlTtlMs: number): Promise<CreateSessionOutcome> {
    return this.db
      .transaction((): CreateSessionOutcome => {
        if (this.countOpen(rec.accountId, now, urlTtlMs) >= limit) return { ok: false, reason: "concurrency_limit" };
        this.insertSession(rec);
        return { ok: true };
      })
      .immediate();
  }

  private insertSession(s: SessionRecord): void {
    this.db
      .query(
        `INSERT INTO sessions (id, account_id, request_id, status, created_at, updated_at, connected_at, ended_at, token_hash, model, region,
           requested_options, applied_options, custom_metadata, result, error, record_audio, recording_path, audio_duration, resume_state)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        s.id, s.accountId, s.requestId, s.status, s.createdAt, s.updatedAt, s.connectedAt, s.endedAt, s.tokenHash, s.model, s.region,
        JSON.stringify(s.requestedOptions), JSON.stringify(s.appliedOptions), json(s.customMetadata), json(s.result), json(s.error),
        s.recordAudio ? 1 : 0, s.recordingPath, s.audioDurationS, json(s.resumeState),
      );
  }

  async countOpenSessions(accountId: string, now: number, urlTtlMs: number): Promise<number> {
    return this.countOpen(accountId, now, urlTtlMs);
  }

  private countOpen(accountId: string, now: number, urlTtlMs: number): number {
    const r = this.db.query(`SELECT count(*) AS n FROM sessions WHERE ${openSessionSql}`).get(accountId, now - urlTtlMs) as Row;
    return r.n as number;
  }

  async getSession(accountId: string, id: string): Promise<SessionRecord | null> {
    const r = this.db.query("SELECT * FROM sessions WHERE id = ? AND account_id = ?").get(id, accountId) as Row | null;
    return r ? rowToSession(r) : null;
  }

  async getSessionById(id: string): Promise<SessionRecord | null> {
    const r = this.db.query("SELECT * FROM sessions WHERE id = ?").get(id) as Row | null;
    return r ? rowToSession(r) : null;
  }

  async getSessionByTokenHash(tokenHash: string): Promise<SessionRecord | null> {
    const r = this.db.query("SELECT * FROM sessions WHERE token_hash = ?").get(tokenHash) as Row | null;
    return r ? rowToSession(r) : null;
  }


  async runningSessions(): Promise<SessionRecord[]> {
    return (this.db.query("SELECT * FROM sessions WHERE status = 'processing' OR (status = 'queued' AND connected_at IS NOT NULL)").all() as Row[]).map(rowToSession);
  }

  async listSessions(accountId: string, q: SessionListQuery): Promise<SessionRecord[]> {
    const where: string[] = ["account_id = ?"];
    const args: (string | number)[] = [accountId];
    if (q.before) {
      where.push("(created_at < ? OR (created_at = ? AND seq < ?))");
      args.push(q.before.createdAt, q.before.createdAt, q.before.seq);
    }
    if (q.createdFrom !== undefined) (where.push("created_at >= ?"), args.push(q.createdFrom));
    if (q.createdTo !== undefined) (where.push("created_at < ?"), args.push(q.createdTo));
    if (q.after !== undefined) (where.push("created_at > ?"), args.push(q.after));
    if (q.beforeDate !== undefined) (where.push("created_at < ?"), args.push(q.beforeDate));
    if (q.statuses?.length) {
      where.push(`status IN (${q.statuses.map(() => "?").join(", ")})`);
      args.push(...q.statuses);
    }
    for (const [key, value] of Object.entries(q.customMetadata ?? {})) {
      const jsonPath = `$."${key.replace(/["\\]/g, (c) => "\\" + c)}"`;
      if (value !== null && typeof value === "object") {
        where.push("json(json_extract(custom_metadata, ?)) = json(?)");
        args.push(jsonPath, JSON.stringify(value));
      } else if (typeof value === "string") {
        // Query-string values are strings: match a stored string, number or boolean written the same way.
        where.push("(json_extract(custom_metadata, ?) = ? OR (json_type(custom_metadata, ?) IN ('integer','real','true','false') AND CAST(json_extract(custom_metadata, ?) AS TEXT) = ?) OR (json_type(custom_metadata, ?) IN ('true','false') AND json_type(custom_metadata, ?) = ?))");
        args.push(jsonPath, value, jsonPath, jsonPath, value, jsonPath, jsonPath, value);
      } else {
        where.push("json_extract(custom_metadata, ?) IS ?");
        args.push(jsonPath, typeof value === "boolean" ? (value ? 1 : 0) : (value as number));
      }
    }
    const sql = `SELECT * FROM sessions WHERE ${where.join(" AND ")} ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?`;
    args.push(q.limit, q.offset);
    return (this.db.query(sql).all(...args) as Row[]).map(rowToSession);
  }

  async updateSession(id: string, patch: Partial<Omit<SessionRecord, "id" | "accountId" | "createdAt">>): Promise<void> {
    const sets: string[] = [];
    const args: (string | number | null)[] = [];
    for (const [k, v] of Object.entries(patch)) {
      const col = sessionColumns[k];
      if (!col) throw new Error(`unknown session field ${k}`);
      sets.push(`${col} = ?`);
      args.push(jsonColumns.has(k) ? json(v) : typeof v === "boolean" ? (v ? 1 : 0) : (v as string | number | null));
    }
    if (!sets.length) return;
    args.push(id);
    this.db.query(`UPDATE sessions SET ${sets.join(", ")} WHERE id = ?`).run(...args);
  }

  async deleteSession(id: string): Promise<void> {
    this.db.transaction(() => {
      this.db.query("DELETE FROM sessions WHERE id = ?").run(id);
      this.dropCheckpointSync(id);
    })();
  }

  async expiredUnusedSessions(now: number, urlTtlMs: number): Promise<SessionRecord[]> {
    return (this.db.query("SELECT * FROM sessions WHERE status = 'queued' AND connected_at IS NULL AND created_at <= ?").all(now - urlTtlMs) as Row[]).map(rowToSession);
  }

  async saveCheckpoint(id: string, w: CheckpointWrite): Promise<void> {
    this.db.transaction(() => {
      if (w.reset) this.dropCheckpointSync(id);
      const dropAudio = this.db.query("DELETE FROM session_checkpoint_audio WHERE session_id = ? AND offset = ?");
      for (const o of w.dropAudio) dropAudio.run(id, o);
      if (w.audio.length > 0) {
        this.db.query("INSERT OR REPLACE INTO session_checkpoint_audio (session_id, offset, bytes) VALUES (?, ?, ?)").run(id, w.audioOffset, w.audio);
      }
      const addFinal = this.db.query("INSERT OR REPLACE INTO session_checkpoint_finals (session_id, idx, body) VALUES (?, ?, ?)");
      w.finals.forEach((f, i) => addFinal.run(id, w.finalsFrom + i, JSON.stringify(f)));
      this.db.query("INSERT OR REPLACE INTO session_checkpoints (session_id, state) VALUES (?, ?)").run(id, JSON.stringify(w.state));
    })();
  }

  async loadCheckpoint(id: string): Promise<StoredCheckpoint | null> {
    const row = this.db.query("SELECT state FROM session_checkpoints WHERE session_id = ?").get(id) as Row | null;
    if (!row) return null;
    const audio = (this.db.query("SELECT offset, bytes FROM session_checkpoint_audio WHERE session_id = ? ORDER BY offset").all(id) as Row[]).map((r) => ({
      offset: r.offset as number,
      bytes: new Uint8Array(r.bytes as Uint8Array),
    }));
    const finals = (this.db.query("SELECT body FROM session_checkpoint_finals WHERE session_id = ? ORDER BY idx").all(id) as Row[]).map((r) => JSON.parse(r.body));
    return { state: JSON.parse(row.state), audio, finals };
  }

  async dropCheckpoint(id: string): Promise<void> {
    this.db.transaction(() => this.dropCheckpointSync(id))();
  }

  private dropCheckpointSync(id: string): void {
    for (const t of ["session_checkpoints", "session_checkpoint_audio", "session_checkpoint_finals"]) this.db.query(`DELETE FROM ${t} WHERE session_id = ?`).run(id);
  }

  async storeLlmCallback(accountId: string, body: { request_id: string; customer_id: string; status: string; data: unknown }, now: number): Promise<void> {
    this.db
      .query("INSERT INTO llm_callbacks (id, account_id, request_id, customer_id, status, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(randomUUID(), accountId, body.request_id, body.customer_id, body.status, JSON.stringify(body.data), now);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
