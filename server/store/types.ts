/**
 * The store: accounts, API keys, sessions and their results. One interface; the embedded default is
 * bun:sqlite under DATA_DIR (`sqlite.ts`); the distributed one is Redis (`redis.ts`), shared by every
 * gateway. Every method is asynchronous so both fit. Times are epoch milliseconds.
 */
import type { LiveModel, LiveSessionInit, LiveSessionStatus, TranscriptionResult } from "../../generated/openapi/types.gen.ts";
import type { AppliedOptions } from "../options/defaults.ts";

export type SessionStatus = LiveSessionStatus;

/** Scopes a key may hold. A key created without an explicit list holds all of them. */
export type Scope = "sessions:write" | "sessions:read" | "sessions:delete" | "recordings:read" | "callbacks:write";
export const allScopes: readonly Scope[] = ["sessions:write", "sessions:read", "sessions:delete", "recordings:read", "callbacks:write"];

export interface Plan {
  /** Concurrent open sessions (POST /v2/live and WebSocket answer 429 past it). */
  maxConcurrentSessions: number;
  /** Maximum session duration in seconds; reaching it acts as stop_recording. */
  maxSessionDurationS: number;
  /** Seconds of audio left; null = unlimited. 0 or less refuses new sessions with 402. */
  creditsSeconds: number | null;
  /** Whether sessions of this account are recorded (FLAC). */
  recordAudio: boolean;
}

export const defaultPlan: Plan = {
  maxConcurrentSessions: 10,
  maxSessionDurationS: 8 * 3600,
  creditsSeconds: null,
  recordAudio: true,
};

export interface Account {
  id: string;
  name: string;
  createdAt: number;
  plan: Plan;
  /** Secret used to sign callback requests (HMAC-SHA256). */
  callbackSecret: string;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  /** First characters of the key, shown to operators to tell keys apart. */
  prefix: string;
  /** SHA-256 hex of the full key; the key itself is never stored. */
  hash: string;
  scopes: Scope[];
  /** CIDR ranges allowed to use the key; empty = any address. */
  allowedCidrs: string[];
  createdAt: number;
  revokedAt: number | null;
}

export interface SessionRecord {
  id: string;
  /** Insertion order, assigned by the store (0 before insertion); breaks ties of `createdAt` in listings. */
  seq: number;
  accountId: string;
  /** Request id of the POST that created the session. */
  requestId: string;
  status: SessionStatus;
  createdAt: number;
  updatedAt: number;
  /** First WebSocket connection; null while the URL is unused. */
  connectedAt: number | null;
  endedAt: number | null;
  /** SHA-256 hex of the WebSocket token. */
  tokenHash: string;
  model: LiveModel;
  region: string | null;
  /** The init body as the client sent it. */
  requestedOptions: LiveSessionInit;
  /** The options the session runs with (the init body with every default applied). */
  appliedOptions: AppliedOptions;
  customMetadata: Record<string, unknown> | null;
  result: TranscriptionResult | null;
  error: { code: string; message: string } | null;
  recordAudio: boolean;
  recordingPath: string | null;
  /** Seconds of audio received, once known. */
  audioDurationS: number | null;
  /** Pipeline state persisted for resume after a restart (opaque to the store). */
  resumeState: unknown | null;
}

export interface SessionListQuery {
  limit: number;
  offset: number;
  /** Decoded cursor: list strictly older than this (createdAt, seq). */
  before?: { createdAt: number; seq: number };
  /** Only sessions created in [from, to). */
  createdFrom?: number;
  createdTo?: number;
  after?: number;
  beforeDate?: number;
  statuses?: SessionStatus[];
  customMetadata?: Record<string, unknown>;
}

/**
 * One write of a live session's crash checkpoint (what another gateway, or the restarted process,
 * resumes from at the last acknowledgment). The state is small; the raw audio tail and the finals are
 * appended, so a write carries only what is new since the previous one. A write is atomic and
 * idempotent (safe to send again after a broken connection).
 */
export interface CheckpointWrite {
  /** Drops whatever was stored before this write (a session that starts checkpointing here). */
  reset: boolean;
  /** The resume state (JSON, opaque to the store). */
  state: unknown;
  /** Raw audio appended at stream offset `audioOffset` (may be empty). */
  audio: Uint8Array;
  audioOffset: number;
  /** Audio chunks stored at these offsets are released (no resume needs them any more). */
  dropAudio: number[];
  /** Finals appended at list index `finalsFrom` (JSON, opaque to the store). */
  finals: unknown[];
  finalsFrom: number;
}

/** A stored checkpoint: its state, its audio chunks by stream offset (ascending), its finals in order. */
export interface StoredCheckpoint {
  state: unknown;
  audio: { offset: number; bytes: Uint8Array }[];
  finals: unknown[];
}

export type CreateSessionOutcome = { ok: true } | { ok: false; reason: "concurrency_limit" };

export interface Store {
  createAccount(input: { name: string; plan?: Partial<Plan>; id?: string }): Promise<Account>;
  getAccount(id: string): Promise<Account | null>;
  listAccounts(): Promise<Account[]>;
  updatePlan(accountId: string, plan: Partial<Plan>): Promise<Account>;
  /** Subtract used seconds (no-op for unlimited plans). */
  consumeCredits(accountId: string, seconds: number): Promise<void>;

  createKey(input: { accountId: string; name?: string; scopes?: Scope[]; allowedCidrs?: string[]; secret?: string }): Promise<{ record: ApiKeyRecord; secret: string }>;
  findKeyBySecret(secret: string): Promise<ApiKeyRecord | null>;
  listKeys(accountId: string): Promise<ApiKeyRecord[]>;
  revokeKey(keyId: string, now: number): Promise<boolean>;

  /**
   * Insert a session unless the account already holds `limit` open sessions at `now`
   * (queued with an unused URL younger than `urlTtlMs`, or queued/processing once connected).
   * Check and insert are atomic, also across processes sharing the store.
   */
  createSession(rec: SessionRecord, limit: number, now: number, urlTtlMs: number): Promise<CreateSessionOutcome>;
  countOpenSessions(accountId: string, now: number, urlTtlMs: number): Promise<number>;
  getSession(accountId: string, id: string): Promise<SessionRecord | null>;
  getSessionById(id: string): Promise<SessionRecord | null>;
  getSessionByTokenHash(tokenHash: string): Promise<SessionRecord | null>;
  listSessions(accountId: string, q: SessionListQuery): Promise<SessionRecord[]>;
  /** Sessions connected and not ended (processing, or queued once connected), of every account. */
  runningSessions(): Promise<SessionRecord[]>;
  /**
   * Applies a patch. Patches of one process are applied in the order they were issued, even when the
   * caller does not await them (the audio path never waits for storage).
   */
  updateSession(id: string, patch: Partial<Omit<SessionRecord, "id" | "accountId" | "createdAt">>): Promise<void>;
  deleteSession(id: string): Promise<void>;
  /** Queued sessions whose URL expired unused at `now` (for the sweeper). */
  expiredUnusedSessions(now: number, urlTtlMs: number): Promise<SessionRecord[]>;

  /** Applies a checkpoint write. Writes of one session from one process are applied in issue order. */
  saveCheckpoint(sessionId: string, write: CheckpointWrite): Promise<void>;
  /** The stored checkpoint of a session, or null. */
  loadCheckpoint(sessionId: string): Promise<StoredCheckpoint | null>;
  /** Drops a session's checkpoint (it ended). */
  dropCheckpoint(sessionId: string): Promise<void>;

  storeLlmCallback(accountId: string, body: { request_id: string; customer_id: string; status: string; data: unknown }, now: number): Promise<void>;
  close(): Promise<void>;
}
