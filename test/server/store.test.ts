/**
 * The store: one behavioural suite run against both implementations (bun:sqlite and Redis), then
 * the checks that only make sense for one of them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { compareListOrder, matchesListQuery } from "../../server/store/list-filter.ts";
import { RedisStore } from "../../server/store/redis.ts";
import { hashSecret } from "../../server/store/records.ts";
import { SqliteStore } from "../../server/store/sqlite.ts";
import { migrations } from "../../server/store/migrations.ts";
import { mulberry32 as prng } from "../../workers/util/prng.ts";
import { allScopes, defaultPlan, type SessionListQuery, type SessionRecord, type SessionStatus, type Store } from "../../server/store/types.ts";
import { connectRedis, dropClient, type RedisClient } from "../../common/redis/client.ts";
import { startRedis, uniquePrefix, type TestRedis } from "../distributed/redis.ts";

/** The store keeps option and result documents as opaque JSON: any value round-trips. */
const opaque = (value: unknown): never => value as never;

function session(accountId: string, createdAt: number, extra: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: randomUUID(),
    seq: 0,
    accountId,
    requestId: "G-00000000",
    status: "queued",
    createdAt,
    updatedAt: createdAt,
    connectedAt: null,
    endedAt: null,
    tokenHash: hashSecret(randomUUID()),
    model: "solaria-1",
    region: null,
    requestedOptions: {},
    appliedOptions: opaque({}),
    customMetadata: null,
    result: null,
    error: null,
    recordAudio: true,
    recordingPath: null,
    audioDurationS: null,
    resumeState: null,
    ...extra,
  };
}


let redis: TestRedis;
const prefixes: string[] = [];
let prefixCount = 0;
/** A key prefix of its own for each store, so tests never see each other's accounts. */
function nextPrefix(): string {
  const p = `${uniquePrefix("store")}-${prefixCount++}`;
  prefixes.push(p);
  return p;
}

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  if (!redis.controllable) {
    // A shared server: remove what this file wrote.
    const client = await connectRedis({ url: redis.url });
    for (const p of prefixes) for await (const keys of client.scanIterator({ MATCH: `${p}:*`, COUNT: 500 })) if (keys.length) await client.del(keys);
    await client.close();
  }
  await redis.stop();
});

interface Backend {
  name: string;
  open(): Promise<Store>;
}

const backends: Backend[] = [
  { name: "SqliteStore", open: async () => new SqliteStore(":memory:") },
  { name: "RedisStore", open: () => RedisStore.connect({ url: redis.url, prefix: nextPrefix() }) },
];

/** Opens a store for one test and closes it afterwards. */
async function using<T>(backend: Backend, fn: (s: Store) => Promise<T>): Promise<T> {
  const s = await backend.open();
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

const all = (extra: Partial<SessionListQuery> = {}): SessionListQuery => ({ limit: 1000, offset: 0, ...extra });
const ids = (rows: SessionRecord[]) => rows.map((r) => r.id);

for (const backend of backends) {
  describe(`${backend.name} (shared behaviour)`, () => {
    const it = (name: string, fn: (s: Store) => Promise<void>) => test(name, () => using(backend, fn));

    // ── crash checkpoints ─────────────────────────────────────────────────────────────────────

    it("checkpoints: appended audio and finals, released chunks, a reset; dropped with the session", async (s) => {
      const bytes = (n: number, v: number) => new Uint8Array(n).fill(v);
      expect(await s.loadCheckpoint("x")).toBeNull();
      const base = { reset: false, dropAudio: [] as number[], finals: [] as unknown[], finalsFrom: 0 };
      await s.saveCheckpoint("x", { ...base, reset: true, state: { n: 1 }, audio: bytes(4, 1), audioOffset: 0, finals: [{ id: "0:0" }] });
      await s.saveCheckpoint("x", { ...base, state: { n: 2 }, audio: bytes(3, 2), audioOffset: 4, finals: [{ id: "0:1" }, { id: "0:2" }], finalsFrom: 1 });
      // Sent twice (a retry after a broken connection): the same result.
      const third = { ...base, state: { n: 3 }, audio: new Uint8Array([0, 255, 7]), audioOffset: 7, dropAudio: [0] };
      await s.saveCheckpoint("x", third);
      await s.saveCheckpoint("x", third);
      expect(await s.loadCheckpoint("x")).toEqual({
        state: { n: 3 },
        audio: [
          { offset: 4, bytes: bytes(3, 2) },
          { offset: 7, bytes: new Uint8Array([0, 255, 7]) },
        ],
        finals: [{ id: "0:0" }, { id: "0:1" }, { id: "0:2" }],
      });
      await s.saveCheckpoint("x", { ...base, reset: true, state: { n: 4 }, audio: bytes(2, 9), audioOffset: 100 });
      expect(await s.loadCheckpoint("x")).toEqual({ state: { n: 4 }, audio: [{ offset: 100, bytes: bytes(2, 9) }], finals: [] });
      await s.dropCheckpoint("x");
      expect(await s.loadCheckpoint("x")).toBeNull();
    });

    // ── accounts ──────────────────────────────────────────────────────────────────────────────

    it("accounts: created with the default plan, read back, listed by creation", async (s) => {
      const a = await s.createAccount({ name: "acme" });
      expect(a.plan).toEqual(defaultPlan);
      expect(a.callbackSecret).toMatch(/^[0-9a-f]{64}$/);
      expect(await s.getAccount(a.id)).toEqual(a);
      expect(await s.getAccount("nope")).toBeNull();
      const b = await s.createAccount({ name: "b", id: "acct-b", plan: { maxConcurrentSessions: 3, creditsSeconds: 12.5, recordAudio: false } });
      expect(b.id).toBe("acct-b");
      expect(await s.getAccount("acct-b")).toEqual(b);
      const c = await s.createAccount({ name: "ünïcødé \"quoted\" name" });
      const listed = await s.listAccounts();
      expect(listed).toEqual([a, b, c].sort((x, y) => x.createdAt - y.createdAt || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)));
    });

    it("accounts: an explicit id that exists is refused", async (s) => {
      await s.createAccount({ name: "first", id: "same" });
      await expect(s.createAccount({ name: "second", id: "same" })).rejects.toThrow();
      expect((await s.getAccount("same"))!.name).toBe("first");
      expect((await s.listAccounts()).length).toBe(1);
    });

    it("accounts: plan updates merge and persist; an unknown account throws", async (s) => {
      const a = await s.createAccount({ name: "a", plan: { creditsSeconds: 100 } });
      const updated = await s.updatePlan(a.id, { maxConcurrentSessions: 2, recordAudio: false });
      expect(updated.plan).toEqual({ ...defaultPlan, creditsSeconds: 100, maxConcurrentSessions: 2, recordAudio: false });
      expect(await s.getAccount(a.id)).toEqual(updated);
      expect((await s.updatePlan(a.id, { creditsSeconds: null })).plan.creditsSeconds).toBeNull();
      await expect(s.updatePlan("nope", { maxConcurrentSessions: 1 })).rejects.toThrow("no account");
    });

    it("credits are consumed only on limited plans, exactly", async (s) => {
      const limited = await s.createAccount({ name: "l", plan: { creditsSeconds: 10 } });
      const unlimited = await s.createAccount({ name: "u" });
      await s.consumeCredits(limited.id, 4.5);
      await s.consumeCredits(unlimited.id, 100);
      await s.consumeCredits("nope", 1);
      expect((await s.getAccount(limited.id))!.plan.creditsSeconds).toBe(5.5);
      expect((await s.getAccount(unlimited.id))!.plan.creditsSeconds).toBeNull();
      for (let i = 0; i < 3; i++) await s.consumeCredits(limited.id, 0.1);
      expect((await s.getAccount(limited.id))!.plan.creditsSeconds).toBe(5.5 - 0.1 - 0.1 - 0.1);
      await s.consumeCredits(limited.id, 10);
      expect((await s.getAccount(limited.id))!.plan.creditsSeconds).toBe(5.5 - 0.1 - 0.1 - 0.1 - 10);
    });

    it("credits: concurrent consumption loses nothing", async (s) => {
      const a = await s.createAccount({ name: "l", plan: { creditsSeconds: 1000 } });
      await Promise.all(Array.from({ length: 40 }, () => s.consumeCredits(a.id, 2)));
      expect((await s.getAccount(a.id))!.plan.creditsSeconds).toBe(920);
    });

    // ── keys ──────────────────────────────────────────────────────────────────────────────────

    it("keys: defaults, found by secret, listed by creation; revoked keys stop working", async (s) => {
      const acct = await s.createAccount({ name: "a" });
      const { record, secret } = await s.createKey({ accountId: acct.id });
      expect(record).toMatchObject({ accountId: acct.id, name: "default", prefix: secret.slice(0, 8), hash: hashSecret(secret), scopes: [...allScopes], allowedCidrs: [], revokedAt: null });
      const second = await s.createKey({ accountId: acct.id, name: "ci", scopes: ["sessions:read"], allowedCidrs: ["10.0.0.0/8"], secret: "stt_explicit-secret" });
      expect(second.secret).toBe("stt_explicit-secret");
      expect(await s.findKeyBySecret(secret)).toEqual(record);
      expect(await s.findKeyBySecret("stt_explicit-secret")).toEqual(second.record);
      expect(await s.findKeyBySecret(secret + "x")).toBeNull();
      expect(await s.listKeys(acct.id)).toEqual([record, second.record].sort((x, y) => x.createdAt - y.createdAt || (x.id < y.id ? -1 : 1)));
      expect(await s.listKeys("nope")).toEqual([]);

      expect(await s.revokeKey(record.id, 1234)).toBe(true);
      expect(await s.revokeKey(record.id, 5678)).toBe(false);
      expect(await s.revokeKey("nope", 1)).toBe(false);
      expect(await s.findKeyBySecret(secret)).toBeNull();
      expect((await s.listKeys(acct.id)).find((k) => k.id === record.id)!.revokedAt).toBe(1234);
      expect(await s.findKeyBySecret("stt_explicit-secret")).toEqual(second.record);
    });

    it("keys: an explicit secret already stored is refused, revoked or not; an unknown account is refused", async (s) => {
      const acct = await s.createAccount({ name: "a" });
      const { record } = await s.createKey({ accountId: acct.id, secret: "stt_dup" });
      await expect(s.createKey({ accountId: acct.id, secret: "stt_dup" })).rejects.toThrow();
      await s.revokeKey(record.id, 1);
      await expect(s.createKey({ accountId: acct.id, secret: "stt_dup" })).rejects.toThrow();
      await expect(s.createKey({ accountId: "nope" })).rejects.toThrow();
      expect((await s.listKeys(acct.id)).length).toBe(1);
    });

    // ── sessions ──────────────────────────────────────────────────────────────────────────────

    it("sessions round-trip exactly: nulls, booleans, numbers, nested JSON", async (s) => {
      const acct = await s.createAccount({ name: "a" });
      const full = session(acct.id, 1_700_000_000_123, {
        status: "processing",
        connectedAt: 1_700_000_000_200,
        region: "eu-west",
        requestedOptions: opaque({ model: "solaria-1", nested: { list: [1, 2.5, "x", null, true, { deep: [] }] }, empty: {} }),
        appliedOptions: opaque({ encoding: "wav/pcm", sample_rate: 16000, bit_depth: 16, flag: false, zero: 0, neg: -1.25e-7 }),
        customMetadata: { user: "ü \"q\" \\ /", n: 3, ok: false, nothing: null, obj: { a: [1, { b: "c" }] } },
        result: opaque({ transcription: { full_transcript: "hello" }, values: [0.1, 1e21, -0] }),
        error: { code: "c", message: "m" },
        recordAudio: false,
        recordingPath: "/data/recordings/x.flac",
        audioDurationS: 12.345,
        resumeState: { v: 1, blob: "AAEC", counters: [0, 1, 2] },
      });
      const bare = session(acct.id, 1_700_000_000_124);
      expect((await s.createSession(full, 10, 1_700_000_000_123, 60_000)).ok).toBe(true);
      expect((await s.createSession(bare, 10, 1_700_000_000_124, 60_000)).ok).toBe(true);

      const back = (await s.getSessionById(full.id))!;
      expect(back.seq).toBeGreaterThan(0);
      expect(back).toEqual({ ...full, seq: back.seq, result: opaque({ transcription: { full_transcript: "hello" }, values: [0.1, 1e21, 0] }) });
      expect(Object.keys(back).sort()).toEqual(Object.keys(full).sort());
      expect(back.recordAudio).toBe(false);
      expect((back.customMetadata as any).nothing).toBeNull();
      expect(await s.getSession(acct.id, full.id)).toEqual(back);
      expect(await s.getSessionByTokenHash(full.tokenHash)).toEqual(back);

      const bareBack = (await s.getSessionById(bare.id))!;
      expect(bareBack).toEqual({ ...bare, seq: bareBack.seq });
      expect(bareBack.seq).toBeGreaterThan(back.seq);
      expect(bareBack.customMetadata).toBeNull();
      expect(bareBack.recordAudio).toBe(true);
    });

    it("sessions: another account's session, an unknown id or token read as null", async (s) => {
      const a = await s.createAccount({ name: "a" });
      const b = await s.createAccount({ name: "b" });
      const rec = session(a.id, 1000);
      await s.createSession(rec, 10, 1000, 60_000);
      expect(await s.getSession(b.id, rec.id)).toBeNull();
      expect(await s.getSession(a.id, randomUUID())).toBeNull();
      expect(await s.getSessionById(randomUUID())).toBeNull();
      expect(await s.getSessionByTokenHash(hashSecret("nope"))).toBeNull();
      expect((await s.getSession(a.id, rec.id))!.id).toBe(rec.id);
    });

    it("sessions: a duplicate id or token hash, or an unknown account, is refused", async (s) => {
      const a = await s.createAccount({ name: "a" });
      const rec = session(a.id, 1000);
      await s.createSession(rec, 10, 1000, 60_000);
      await expect(s.createSession({ ...rec, tokenHash: hashSecret("other") }, 10, 1000, 60_000)).rejects.toThrow();
      await expect(s.createSession(session(a.id, 1000, { tokenHash: rec.tokenHash }), 10, 1000, 60_000)).rejects.toThrow();
      await expect(s.createSession(session("nope", 1000), 10, 1000, 60_000)).rejects.toThrow();
      expect((await s.listSessions(a.id, all())).length).toBe(1);
      expect(await s.countOpenSessions(a.id, 1000, 60_000)).toBe(1);
    });

    it("updateSession writes the patched fields only; unknown fields throw; unknown ids stay unknown", async (s) => {
      const a = await s.createAccount({ name: "a" });
      const rec = session(a.id, 1000, { customMetadata: { k: "v" } });
      await s.createSession(rec, 10, 1000, 60_000);
      const { seq } = (await s.getSessionById(rec.id))!;
      await s.updateSession(rec.id, { status: "processing", connectedAt: 1500, updatedAt: 1500, resumeState: { at: [1, 2] } });
      await s.updateSession(rec.id, { result: opaque({ t: "x" }), error: null, recordAudio: false, audioDurationS: 0, customMetadata: null });
      await s.updateSession(rec.id, {});
      expect(await s.getSessionById(rec.id)).toEqual({
        ...rec,
        seq,
        status: "processing",
        connectedAt: 1500,
        updatedAt: 1500,
        resumeState: { at: [1, 2] },
        result: opaque({ t: "x" }),
        recordAudio: false,
        audioDurationS: 0,
        customMetadata: null,
      });
      await expect(s.updateSession(rec.id, { nope: 1 } as any)).rejects.toThrow("unknown session field");
      await expect(s.updateSession(rec.id, { seq: 99 })).rejects.toThrow("unknown session field");

      const ghost = randomUUID();
      await s.updateSession(ghost, { status: "done", endedAt: 1, resumeState: { x: 1 } });
      expect(await s.getSessionById(ghost)).toBeNull();
    });

    it("updateSession: patches issued without awaiting apply in issue order", async (s) => {
      const a = await s.createAccount({ name: "a" });
      const recs = [session(a.id, 1000), session(a.id, 1001)];
      for (const r of recs) await s.createSession(r, 10, 1000, 60_000);
      const pending: Promise<void>[] = [];
      for (let i = 0; i < 200; i++) {
        for (const r of recs) pending.push(s.updateSession(r.id, { audioDurationS: i, updatedAt: 2000 + i, resumeState: i % 2 ? { odd: i } : null }));
        if (i === 50) pending.push(s.updateSession(recs[0]!.id, { status: "processing", connectedAt: 1999 }));
      }
      pending.push(s.updateSession(recs[1]!.id, { status: "done", endedAt: 3000 }));
      await Promise.all(pending);
      for (const r of recs) expect(await s.getSessionById(r.id)).toMatchObject({ audioDurationS: 199, updatedAt: 2199, resumeState: { odd: 199 } });
      expect((await s.getSessionById(recs[0]!.id))!.status).toBe("processing");
      expect((await s.getSessionById(recs[1]!.id))!.status).toBe("done");
      expect(await s.countOpenSessions(a.id, 1000, 60_000)).toBe(1);
    });

    it("updateSession can change the token hash", async (s) => {
      const a = await s.createAccount({ name: "a" });
      const rec = session(a.id, 1000);
      await s.createSession(rec, 10, 1000, 60_000);
      const next = hashSecret("next");
      await s.updateSession(rec.id, { tokenHash: next });
      expect(await s.getSessionByTokenHash(rec.tokenHash)).toBeNull();
      expect((await s.getSessionByTokenHash(next))!.id).toBe(rec.id);
    });

    it("deleteSession removes it from every read, count and listing", async (s) => {
      const a = await s.createAccount({ name: "a" });
      const t0 = 1_000_000;
      const unused = session(a.id, t0);
      const connected = session(a.id, t0 + 1, { status: "processing", connectedAt: t0 + 2 });
      const kept = session(a.id, t0 + 2);
      for (const r of [unused, connected, kept]) await s.createSession(r, 10, t0, 60_000);
      expect(await s.countOpenSessions(a.id, t0, 60_000)).toBe(3);
      await s.deleteSession(unused.id);
      await s.deleteSession(connected.id);
      await s.deleteSession(randomUUID());
      expect(await s.getSessionById(unused.id)).toBeNull();
      expect(await s.getSessionByTokenHash(connected.tokenHash)).toBeNull();
      expect(ids(await s.listSessions(a.id, all()))).toEqual([kept.id]);
      expect(await s.countOpenSessions(a.id, t0, 60_000)).toBe(1);
      expect(ids(await s.expiredUnusedSessions(t0 + 120_000, 60_000))).toEqual([kept.id]);
      // An update after deletion does not bring it back.
      await s.updateSession(unused.id, { status: "error", endedAt: t0 });
      expect(await s.getSessionById(unused.id)).toBeNull();
      expect(ids(await s.listSessions(a.id, all()))).toEqual([kept.id]);
    });

    // ── open sessions ─────────────────────────────────────────────────────────────────────────

    it("concurrency: unused URLs stop counting after the TTL, connected ones keep counting", async (s) => {
      const acct = await s.createAccount({ name: "a" });
      const t0 = 1_000_000;
      expect((await s.createSession(session(acct.id, t0), 2, t0, 60_000)).ok).toBe(true);
      const connected = session(acct.id, t0, { connectedAt: t0 + 1 });
      expect((await s.createSession(connected, 2, t0, 60_000)).ok).toBe(true);
      expect(await s.createSession(session(acct.id, t0), 2, t0 + 1000, 60_000)).toEqual({ ok: false, reason: "concurrency_limit" });
      // 60 s later the unused one expired; the connected one still counts.
      expect(await s.countOpenSessions(acct.id, t0 + 60_000, 60_000)).toBe(1);
      expect(await s.countOpenSessions(acct.id, t0 + 59_999, 60_000)).toBe(2);
      expect((await s.createSession(session(acct.id, t0 + 60_001), 2, t0 + 60_001, 60_000)).ok).toBe(true);
      await s.updateSession(connected.id, { status: "done", endedAt: t0 + 70_000 });
      expect(await s.countOpenSessions(acct.id, t0 + 70_001, 60_000)).toBe(1);
    });

    it("concurrency: what counts as open", async (s) => {
      const acct = await s.createAccount({ name: "a" });
      const other = await s.createAccount({ name: "b" });
      const t0 = 5_000_000;
      const ttl = 60_000;
      await s.createSession(session(acct.id, t0, { status: "done", endedAt: t0 }), 10, t0, ttl);
      await s.createSession(session(acct.id, t0, { status: "error", connectedAt: t0 }), 10, t0, ttl);
      const processing = session(acct.id, t0 - 10 * ttl, { status: "processing" });
      await s.createSession(processing, 10, t0, ttl);
      const unused = session(acct.id, t0);
      await s.createSession(unused, 10, t0, ttl);
      await s.createSession(session(other.id, t0), 10, t0, ttl);
      expect(await s.countOpenSessions(acct.id, t0, ttl)).toBe(2);
      // Connecting keeps the session counted past its URL's expiry.
      await s.updateSession(unused.id, { status: "processing", connectedAt: t0 + 10, updatedAt: t0 + 10 });
      expect(await s.countOpenSessions(acct.id, t0 + 10 * ttl, ttl)).toBe(2);
      await s.updateSession(processing.id, { status: "error", error: { code: "x", message: "y" }, endedAt: t0 + 20 });
      expect(await s.countOpenSessions(acct.id, t0 + 10 * ttl, ttl)).toBe(1);
      await s.updateSession(unused.id, { status: "done", endedAt: t0 + 30 });
      expect(await s.countOpenSessions(acct.id, t0 + 10 * ttl, ttl)).toBe(0);
      expect(await s.countOpenSessions(other.id, t0, ttl)).toBe(1);
      expect(await s.countOpenSessions("nope", t0, ttl)).toBe(0);
    });

    it("concurrency: a limit of 0 refuses, the limit is per account, concurrent creations respect it", async (s) => {
      const a = await s.createAccount({ name: "a" });
      const b = await s.createAccount({ name: "b" });
      const t0 = 1_000;
      expect(await s.createSession(session(a.id, t0), 0, t0, 60_000)).toEqual({ ok: false, reason: "concurrency_limit" });
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => s.createSession(session(i % 2 ? a.id : b.id, t0), 4, t0, 60_000)));
      expect(outcomes.filter((o) => o.ok).length).toBe(8);
      expect(await s.countOpenSessions(a.id, t0, 60_000)).toBe(4);
      expect(await s.countOpenSessions(b.id, t0, 60_000)).toBe(4);
    });

    it("expiredUnusedSessions: queued, never connected, URL older than the TTL", async (s) => {
      const a = await s.createAccount({ name: "a" });
      const b = await s.createAccount({ name: "b" });
      const t0 = 10_000_000;
      const ttl = 60_000;
      const oldA = session(a.id, t0);
      const oldB = session(b.id, t0 + 5);
      const young = session(a.id, t0 + 30_000);
      const connected = session(a.id, t0, { connectedAt: t0 + 1 });
      const ended = session(a.id, t0, { status: "error", endedAt: t0 });
      const processing = session(a.id, t0, { status: "processing" });
      for (const r of [oldA, oldB, young, connected, ended, processing]) await s.createSession(r, 100, t0, ttl);
      const at = (now: number) => s.expiredUnusedSessions(now, ttl).then((rows) => ids(rows).sort());
      expect(await at(t0 + ttl - 1)).toEqual([]);
      expect(await at(t0 + ttl)).toEqual([oldA.id]);
      expect(await at(t0 + ttl + 30_000)).toEqual([oldA.id, oldB.id, young.id].sort());
      const rows = await s.expiredUnusedSessions(t0 + ttl + 5, ttl);
      expect(rows.map((r) => r.id).sort()).toEqual([oldA.id, oldB.id].sort());
      expect(rows.find((r) => r.id === oldA.id)!).toEqual((await s.getSessionById(oldA.id))!);
      // Settling them (as the sweeper does) or connecting takes them out.
      await s.updateSession(oldA.id, { status: "error", error: { code: "url_expired", message: "m" }, endedAt: t0 + ttl });
      await s.updateSession(young.id, { status: "processing", connectedAt: t0 + 40_000 });
      expect(await at(t0 + 10 * ttl)).toEqual([oldB.id]);
    });

    it("runningSessions: connected and not ended, across accounts", async (s) => {
      const a = await s.createAccount({ name: "a" });
      const b = await s.createAccount({ name: "b" });
      const t0 = 20_000_000;
      const unused = session(a.id, t0);
      const connected = session(a.id, t0, { connectedAt: t0 + 1 });
      const processing = session(b.id, t0, { status: "processing", connectedAt: t0 + 2 });
      const done = session(b.id, t0, { status: "processing", connectedAt: t0 + 3 });
      for (const r of [unused, connected, processing, done]) await s.createSession(r, 100, t0, 60_000);
      await s.updateSession(done.id, { status: "done", endedAt: t0 + 10 });
      await s.updateSession(unused.id, { updatedAt: t0 + 5 });
      expect(ids(await s.runningSessions()).sort()).toEqual([connected.id, processing.id].sort());
      await s.updateSession(connected.id, { status: "processing" });
      await s.updateSession(processing.id, { status: "error", endedAt: t0 + 20 });
      const rows = await s.runningSessions();
      expect(ids(rows)).toEqual([connected.id]);
      expect(rows[0]).toEqual((await s.getSessionById(connected.id))!);
    });

    // ── listing ───────────────────────────────────────────────────────────────────────────────

    it("list: newest first, cursor, filters on status, dates and custom_metadata", async (s) => {
      const a = await s.createAccount({ name: "a" });
      const other = await s.createAccount({ name: "b" });
      const day = Date.parse("2026-03-01T00:00:00Z");
      for (let i = 0; i < 10; i++) {
        await s.createSession(session(a.id, day + i * 3600_000, { status: i % 2 ? "done" : "queued", customMetadata: { n: i, team: i < 5 ? "x" : "y", ok: i === 3 } }), 100, 0, 60_000);
      }
      await s.createSession(session(other.id, day), 100, 0, 60_000);
      const list = (q: Partial<SessionListQuery>) => s.listSessions(a.id, all(q));
      const everything = await list({});
      expect(everything.length).toBe(10);
      expect(everything.map((r) => r.createdAt)).toEqual([...everything.map((r) => r.createdAt)].sort((x, y) => y - x));
      const page1 = await list({ limit: 4 });
      expect(ids(page1)).toEqual(ids(everything.slice(0, 4)));
      const last = page1[3]!;
      const page2 = await list({ limit: 4, before: { createdAt: last.createdAt, seq: last.seq } });
      expect(ids(page2)).toEqual(ids(everything.slice(4, 8)));
      expect((await list({ statuses: ["done"] })).length).toBe(5);
      expect((await list({ statuses: ["done", "queued"] })).length).toBe(10);
      expect((await list({ statuses: ["processing"] })).length).toBe(0);
      expect((await list({ customMetadata: { team: "y" } })).length).toBe(5);
      expect((await list({ customMetadata: { n: "3" } })).length).toBe(1);
      expect((await list({ customMetadata: { n: 3 } })).length).toBe(1);
      expect((await list({ customMetadata: { n: "03" } })).length).toBe(0);
      expect((await list({ customMetadata: { ok: "true" } })).length).toBe(1);
      expect((await list({ customMetadata: { ok: true } })).length).toBe(1);
      expect((await list({ customMetadata: { ok: false } })).length).toBe(9);
      expect((await list({ customMetadata: { team: "x", n: "4" } })).length).toBe(1);
      expect((await list({ customMetadata: { team: "x", n: "5" } })).length).toBe(0);
      expect((await list({ customMetadata: { missing: "x" } })).length).toBe(0);
      expect((await list({ after: day + 5 * 3600_000 })).length).toBe(4);
      expect((await list({ beforeDate: day + 2 * 3600_000 })).length).toBe(2);
      expect((await list({ createdFrom: day + 2 * 3600_000, createdTo: day + 5 * 3600_000 })).map((r) => r.createdAt)).toEqual([4, 3, 2].map((h) => day + h * 3600_000));
      expect((await list({ offset: 8 })).length).toBe(2);
      expect(ids(await list({ offset: 3, limit: 2, statuses: ["queued"] }))).toEqual(ids(everything.filter((r) => r.status === "queued").slice(3, 5)));
      expect(await list({ limit: 0 })).toEqual([]);
      expect(await list({ offset: 100 })).toEqual([]);
      expect(await s.listSessions("nope", all())).toEqual([]);
    });

    it("list: custom_metadata objects, arrays and null", async (s) => {
      const a = await s.createAccount({ name: "a" });
      const withObj = session(a.id, 1, { customMetadata: { o: { x: 1, y: [1, 2] }, arr: [1, "a"] } });
      const withNull = session(a.id, 2, { customMetadata: { o: null } });
      const without = session(a.id, 3, { customMetadata: null });
      const other = session(a.id, 4, { customMetadata: { o: { x: 2 } } });
      for (const r of [withObj, withNull, without, other]) await s.createSession(r, 100, 0, 60_000);
      const match = async (customMetadata: Record<string, unknown>) => ids(await s.listSessions(a.id, all({ customMetadata }))).sort();
      expect(await match({ o: { x: 1, y: [1, 2] } })).toEqual([withObj.id]);
      expect(await match({ o: { x: 1 } })).toEqual([]);
      expect(await match({ arr: [1, "a"] })).toEqual([withObj.id]);
      expect(await match({ arr: ["a", 1] })).toEqual([]);
      expect(await match({ o: null })).toEqual([withNull.id, without.id].sort());
    });

    it("list: equal createdAt values page by seq through the cursor", async (s) => {
      const a = await s.createAccount({ name: "a" });
      const rand = prng(7);
      for (let i = 0; i < 150; i++) {
        const createdAt = 1000 + Math.floor(rand() * 3) * 10; // three values, ~50 sessions each
        await s.createSession(session(a.id, createdAt, { status: rand() < 0.5 ? "done" : "queued" }), 1000, 0, 1);
      }
      for (const filter of [{}, { statuses: ["done" as SessionStatus] }]) {
        const full = await s.listSessions(a.id, all(filter));
        expect(full.map((r) => [r.createdAt, r.seq])).toEqual([...full].sort(compareListOrder).map((r) => [r.createdAt, r.seq]));
        for (const pageSize of [1, 7, 40]) {
          const walked: SessionRecord[] = [];
          let before: SessionListQuery["before"];
          for (;;) {
            const page = await s.listSessions(a.id, { limit: pageSize, offset: 0, before, ...filter });
            walked.push(...page);
            if (page.length < pageSize) break;
            before = { createdAt: page[page.length - 1]!.createdAt, seq: page[page.length - 1]!.seq };
          }
          expect(ids(walked)).toEqual(ids(full));
        }
      }
    });

    it("list: generated sessions and queries agree with the listing filter", async (s) => {
      const a = await s.createAccount({ name: "a" });
      const rand = prng(42);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
      // Scalars on `s`, objects on `o` (values SQLite compares the same way as the filter).
      const scalars = ["a", "3", "true", 3, 1.5, 2, true, false, null, undefined];
      const objects = [{ x: 1 }, { x: 2 }, [1, 2], null, undefined];
      for (let i = 0; i < 120; i++) {
        const metadata: Record<string, unknown> = {};
        const sv = pick(scalars);
        const ov = pick(objects);
        if (sv !== undefined) metadata.s = sv;
        if (ov !== undefined) metadata.o = ov;
        const rec = session(a.id, 1000 + Math.floor(rand() * 20) * 100, {
          status: pick(["queued", "processing", "done", "error"] as const),
          customMetadata: rand() < 0.15 ? null : metadata,
        });
        await s.createSession(rec, 1000, 0, 1);
      }
      const stored = (await s.listSessions(a.id, all())).sort(compareListOrder);
      expect(stored.length).toBe(120);
      for (let n = 0; n < 150; n++) {
        const q: SessionListQuery = { limit: pick([1, 5, 20, 1000]), offset: pick([0, 0, 3, 17]) };
        if (rand() < 0.3) q.statuses = [pick(["queued", "processing", "done", "error"] as const), pick(["queued", "done"] as const)];
        if (rand() < 0.3) q.createdFrom = 1000 + Math.floor(rand() * 20) * 100;
        if (rand() < 0.3) q.createdTo = 1000 + Math.floor(rand() * 20) * 100;
        if (rand() < 0.2) q.after = 1000 + Math.floor(rand() * 20) * 100;
        if (rand() < 0.2) q.beforeDate = 1000 + Math.floor(rand() * 20) * 100;
        if (rand() < 0.3) {
          const ref = pick(stored);
          q.before = { createdAt: ref.createdAt, seq: ref.seq };
        }
        if (rand() < 0.5) {
          q.customMetadata = {};
          if (rand() < 0.7) q.customMetadata.s = pick(["a", "3", "true", "false", "1.5", "x", 3, 1.5, true, false, null]);
          if (rand() < 0.4) q.customMetadata.o = pick([{ x: 1 }, { x: 2 }, [1, 2], null]);
        }
        const expected = stored.filter((r) => matchesListQuery(r, q)).slice(q.offset, q.offset + q.limit);
        expect({ q, got: ids(await s.listSessions(a.id, q)) }).toEqual({ q, got: ids(expected) });
      }
    });

    // ── callbacks ─────────────────────────────────────────────────────────────────────────────

    it("LLM callbacks are stored for a known account and refused for an unknown one", async (s) => {
      const a = await s.createAccount({ name: "a" });
      await s.storeLlmCallback(a.id, { request_id: "r", customer_id: "c", status: "ok", data: { x: [1] } }, 1000);
      await expect(s.storeLlmCallback("nope", { request_id: "r", customer_id: "c", status: "ok", data: null }, 1000)).rejects.toThrow();
    });
  });
}

describe("SqliteStore only", () => {
  test("migrates a new file and reopens it without re-running migrations", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "store-"));
    const a = SqliteStore.open(dir);
    const acct = await a.createAccount({ name: "acme" });
    await a.close();
    const b = SqliteStore.open(dir);
    expect((await b.getAccount(acct.id))?.name).toBe("acme");
    expect((b.db.query("PRAGMA journal_mode").get() as any).journal_mode).toBe("wal");
    expect((b.db.query("PRAGMA user_version").get() as any).user_version).toBe(migrations.length);
    await b.close();
  });

  test("the key table holds the hash, never the secret", async () => {
    const s = new SqliteStore(":memory:");
    const acct = await s.createAccount({ name: "a" });
    const { secret } = await s.createKey({ accountId: acct.id, scopes: ["sessions:read"] });
    const raw = s.db.query("SELECT * FROM api_keys").all() as any[];
    expect(JSON.stringify(raw)).not.toContain(secret);
    expect(JSON.stringify(raw)).toContain(hashSecret(secret));
    await s.close();
  });
});

describe("RedisStore only", () => {
  const clients: RedisClient[] = [];
  async function admin(): Promise<RedisClient> {
    const c = await connectRedis({ url: redis.url });
    clients.push(c);
    return c;
  }
  afterAll(() => {
    for (const c of clients) dropClient(c);
  });

  /** Every key under a prefix with its content, as text. */
  async function dump(client: RedisClient, prefix: string): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) {
      for (const key of keys) {
        const type = await client.type(key);
        const value =
          type === "hash" ? await client.hGetAll(key)
          : type === "zset" ? await client.zRangeWithScores(key, 0, -1)
          : type === "list" ? await client.lRange(key, 0, -1)
          : await client.get(key);
        out.set(key, JSON.stringify(value));
      }
    }
    return out;
  }

  test("50 creations racing from two gateways admit exactly the limit", async () => {
    const prefix = nextPrefix();
    const [one, two] = await Promise.all([RedisStore.connect({ url: redis.url, prefix }), RedisStore.connect({ url: redis.url, prefix })]);
    try {
      const acct = await one.createAccount({ name: "a" });
      const t0 = Date.now();
      const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? one : two).createSession(session(acct.id, t0), 7, t0, 60_000)));
      expect(outcomes.filter((o) => o.ok).length).toBe(7);
      expect(outcomes.filter((o) => !o.ok).every((o) => !o.ok && o.reason === "concurrency_limit")).toBe(true);
      expect(await two.countOpenSessions(acct.id, t0, 60_000)).toBe(7);
      const listed = await one.listSessions(acct.id, all());
      expect(listed.length).toBe(7);
      expect(new Set(listed.map((r) => r.seq)).size).toBe(7);
      // Each gateway sees what the other wrote.
      expect(await two.getAccount(acct.id)).toEqual(acct);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  test("every key lies under {prefix}:store:, and no value holds a key's secret", async () => {
    const prefix = nextPrefix();
    const s = await RedisStore.connect({ url: redis.url, prefix });
    try {
      const acct = await s.createAccount({ name: "a" });
      const { secret, record } = await s.createKey({ accountId: acct.id });
      await s.createSession(session(acct.id, 1000), 10, 1000, 60_000);
      await s.storeLlmCallback(acct.id, { request_id: "r", customer_id: "c", status: "ok", data: 1 }, 1);
      const keys = await dump(await admin(), prefix);
      expect(keys.size).toBeGreaterThan(5);
      for (const [key, value] of keys) {
        expect(key.startsWith(`${prefix}:store:`)).toBe(true);
        expect(key).not.toContain(secret);
        expect(value).not.toContain(secret);
      }
      expect(keys.has(`${prefix}:store:key-hash:${record.hash}`)).toBe(true);
    } finally {
      await s.close();
    }
  });

  test("deleteSession leaves no trace; an update of a deleted id writes nothing", async () => {
    const prefix = nextPrefix();
    const s = await RedisStore.connect({ url: redis.url, prefix });
    try {
      const acct = await s.createAccount({ name: "a" });
      const before = await dump(await admin(), prefix);
      const rec = session(acct.id, 1000);
      await s.createSession(rec, 10, 1000, 60_000);
      await s.updateSession(rec.id, { status: "processing", connectedAt: 1001 });
      await s.deleteSession(rec.id);
      await s.updateSession(rec.id, { status: "done", endedAt: 2000 });
      await s.updateSession(rec.id, { resumeState: { x: 1 } });
      const after = await dump(await admin(), prefix);
      after.delete(`${prefix}:store:session-seq`);
      expect(after).toEqual(before);
    } finally {
      await s.close();
    }
  });

  test("open sessions: the score is the URL expiry, +inf once connected, gone once ended", async () => {
    const prefix = nextPrefix();
    const s = await RedisStore.connect({ url: redis.url, prefix });
    const c = await admin();
    try {
      const acct = await s.createAccount({ name: "a" });
      const rec = session(acct.id, 1000);
      await s.createSession(rec, 10, 1000, 60_000);
      const open = `${prefix}:store:account-open:${acct.id}`;
      const unused = `${prefix}:store:unused-urls`;
      expect(await c.zScore(open, rec.id)).toBe(61_000);
      expect(await c.zScore(unused, rec.id)).toBe(1000);
      await s.updateSession(rec.id, { status: "processing", connectedAt: 2000 });
      expect(await c.zScore(open, rec.id)).toBe(Infinity);
      expect(await c.zScore(unused, rec.id)).toBeNull();
      await s.updateSession(rec.id, { status: "done", endedAt: 3000 });
      expect(await c.zScore(open, rec.id)).toBeNull();
    } finally {
      await s.close();
    }
  });

  test("stores with different prefixes do not see each other; a bad prefix is refused", async () => {
    const [one, two] = await Promise.all([RedisStore.connect({ url: redis.url, prefix: nextPrefix() }), RedisStore.connect({ url: redis.url, prefix: nextPrefix() })]);
    try {
      const acct = await one.createAccount({ name: "a", id: "shared-id" });
      expect(await two.getAccount(acct.id)).toBeNull();
      expect(await two.listAccounts()).toEqual([]);
      await two.createAccount({ name: "b", id: "shared-id" });
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
    await expect(RedisStore.connect({ url: redis.url, prefix: "bad prefix" })).rejects.toThrow("invalid Redis key prefix");
  });

  test("the LLM callback list keeps the newest entries", async () => {
    const s = await RedisStore.connect({ url: redis.url, prefix: nextPrefix() });
    try {
      const acct = await s.createAccount({ name: "a" });
      for (let i = 0; i < 3; i++) await s.storeLlmCallback(acct.id, { request_id: `r${i}`, customer_id: "c", status: "ok", data: { i } }, 1000 + i);
      const stored = await s.llmCallbacks(acct.id);
      expect(stored.map((e) => [e.requestId, e.data, e.createdAt])).toEqual([["r2", { i: 2 }, 1002], ["r1", { i: 1 }, 1001], ["r0", { i: 0 }, 1000]]);
    } finally {
      await s.close();
    }
  });

  test("patches in flight when the connection is killed are sent again, in order", async () => {
    const prefix = nextPrefix();
    const s = await RedisStore.connect({ url: redis.url, prefix, onError: () => {} });
    const c = await admin();
    try {
      const acct = await s.createAccount({ name: "a" });
      const rec = session(acct.id, 1000);
      await s.createSession(rec, 10, 1000, 60_000);
      const pending: Promise<void>[] = [];
      for (let i = 0; i < 300; i++) {
        pending.push(s.updateSession(rec.id, { audioDurationS: i }));
        if (i % 60 === 30) {
          // Kill the store's connection (found by its client name) while patches are in flight.
          const list = String(await c.sendCommand(["CLIENT", "LIST"]));
          for (const line of list.split("\n")) {
            if (!line.includes(`name=${prefix}:store `)) continue;
            const id = /\bid=(\d+)/.exec(line)![1]!;
            await c.sendCommand(["CLIENT", "KILL", "ID", id]);
          }
        }
        if (i % 10 === 0) await Bun.sleep(1);
      }
      await Promise.all(pending);
      expect((await s.getSessionById(rec.id))!.audioDurationS).toBe(299);
    } finally {
      await s.close();
    }
  });

  test("patches issued while Redis does not answer are applied in order once it does", async () => {
    if (!redis.controllable) return; // needs a test-owned server
    const prefix = nextPrefix();
    const s = await RedisStore.connect({ url: redis.url, prefix, onError: () => {} });
    try {
      const acct = await s.createAccount({ name: "a" });
      const rec = session(acct.id, 1000);
      await s.createSession(rec, 10, 1000, 60_000);
      redis.pause();
      let settled = 0;
      const pending: Promise<void>[] = [];
      pending.push(s.updateSession(rec.id, { status: "processing", connectedAt: 1001 }).then(() => void settled++));
      for (let i = 0; i < 50; i++) pending.push(s.updateSession(rec.id, { audioDurationS: i }).then(() => void settled++));
      pending.push(s.updateSession(rec.id, { status: "done", endedAt: 2000 }).then(() => void settled++));
      await Bun.sleep(300);
      expect(settled).toBe(0);
      redis.resume();
      await Promise.all(pending);
      expect(await s.getSessionById(rec.id)).toMatchObject({ status: "done", connectedAt: 1001, endedAt: 2000, audioDurationS: 49 });
      expect(await s.countOpenSessions(acct.id, 1000, 60_000)).toBe(0);
    } finally {
      redis.resume();
      await s.close();
    }
  });
});
