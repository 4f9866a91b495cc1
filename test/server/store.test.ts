import { describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SqliteStore, hashSecret } from "../../server/store/sqlite.ts";
import type { SessionRecord } from "../../server/store/types.ts";

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
    appliedOptions: {},
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

describe("SqliteStore", () => {
  test("migrates a new file and reopens it without re-running migrations", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "store-"));
    const a = SqliteStore.open(dir);
    const acct = a.createAccount({ name: "acme" });
    a.close();
    const b = SqliteStore.open(dir);
    expect(b.getAccount(acct.id)?.name).toBe("acme");
    expect((b.db.query("PRAGMA journal_mode").get() as any).journal_mode).toBe("wal");
    b.close();
  });

  test("keys are stored hashed and found by secret; revoked keys stop working", () => {
    const s = new SqliteStore(":memory:");
    const acct = s.createAccount({ name: "a" });
    const { record, secret } = s.createKey({ accountId: acct.id, scopes: ["sessions:read"] });
    const raw = s.db.query("SELECT * FROM api_keys").all() as any[];
    expect(JSON.stringify(raw)).not.toContain(secret);
    expect(s.findKeyBySecret(secret)?.id).toBe(record.id);
    expect(s.findKeyBySecret(secret + "x")).toBeNull();
    expect(s.revokeKey(record.id, 1)).toBe(true);
    expect(s.findKeyBySecret(secret)).toBeNull();
  });

  test("concurrency: unused URLs stop counting after the TTL, connected ones keep counting", () => {
    const s = new SqliteStore(":memory:");
    const acct = s.createAccount({ name: "a" });
    const t0 = 1_000_000;
    expect(s.createSession(session(acct.id, t0), 2, t0, 60_000).ok).toBe(true);
    const connected = session(acct.id, t0, { connectedAt: t0 + 1 });
    expect(s.createSession(connected, 2, t0, 60_000).ok).toBe(true);
    expect(s.createSession(session(acct.id, t0), 2, t0 + 1000, 60_000)).toEqual({ ok: false, reason: "concurrency_limit" });
    // 60 s later the unused one expired; the connected one still counts.
    expect(s.countOpenSessions(acct.id, t0 + 60_001, 60_000)).toBe(1);
    expect(s.createSession(session(acct.id, t0 + 60_001), 2, t0 + 60_001, 60_000).ok).toBe(true);
    s.updateSession(connected.id, { status: "done", endedAt: t0 + 70_000 });
    expect(s.countOpenSessions(acct.id, t0 + 70_001, 60_000)).toBe(1);
  });

  test("list: newest first, cursor, filters on status, dates and custom_metadata", () => {
    const s = new SqliteStore(":memory:");
    const a = s.createAccount({ name: "a" });
    const other = s.createAccount({ name: "b" });
    const day = Date.parse("2026-03-01T00:00:00Z");
    for (let i = 0; i < 10; i++) {
      s.createSession(session(a.id, day + i * 3600_000, { status: i % 2 ? "done" : "queued", customMetadata: { n: i, team: i < 5 ? "x" : "y", ok: i === 3 } }), 100, 0, 60_000);
    }
    s.createSession(session(other.id, day), 100, 0, 60_000);
    const all = s.listSessions(a.id, { limit: 100, offset: 0 });
    expect(all.length).toBe(10);
    expect(all.map((r) => r.createdAt)).toEqual([...all.map((r) => r.createdAt)].sort((x, y) => y - x));
    const page1 = s.listSessions(a.id, { limit: 4, offset: 0 });
    const last = page1[3]!;
    const page2 = s.listSessions(a.id, { limit: 4, offset: 0, before: { createdAt: last.createdAt, seq: last.seq } });
    expect(page2[0]!.createdAt).toBeLessThan(last.createdAt);
    expect(s.listSessions(a.id, { limit: 100, offset: 0, statuses: ["done"] }).length).toBe(5);
    expect(s.listSessions(a.id, { limit: 100, offset: 0, customMetadata: { team: "y" } }).length).toBe(5);
    expect(s.listSessions(a.id, { limit: 100, offset: 0, customMetadata: { n: "3" } }).length).toBe(1);
    expect(s.listSessions(a.id, { limit: 100, offset: 0, customMetadata: { n: 3 } }).length).toBe(1);
    expect(s.listSessions(a.id, { limit: 100, offset: 0, customMetadata: { ok: "true" } }).length).toBe(1);
    expect(s.listSessions(a.id, { limit: 100, offset: 0, customMetadata: { ok: true } }).length).toBe(1);
    expect(s.listSessions(a.id, { limit: 100, offset: 0, after: day + 5 * 3600_000 }).length).toBe(4);
    expect(s.listSessions(a.id, { limit: 100, offset: 0, beforeDate: day + 2 * 3600_000 }).length).toBe(2);
    expect(s.listSessions(a.id, { limit: 100, offset: 8 }).length).toBe(2);
  });

  test("credits are consumed only on limited plans", () => {
    const s = new SqliteStore(":memory:");
    const limited = s.createAccount({ name: "l", plan: { creditsSeconds: 10 } });
    const unlimited = s.createAccount({ name: "u" });
    s.consumeCredits(limited.id, 4.5);
    s.consumeCredits(unlimited.id, 100);
    expect(s.getAccount(limited.id)!.plan.creditsSeconds).toBe(5.5);
    expect(s.getAccount(unlimited.id)!.plan.creditsSeconds).toBeNull();
  });
});
