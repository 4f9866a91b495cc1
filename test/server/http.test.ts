/** Integration tests over real HTTP, with the generated typed client, for every operation and documented status. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import * as sdk from "../../generated/openapi/sdk.gen.ts";
import { operations } from "../../generated/operations.ts";
import { validators, validateErrorResponse } from "../../generated/validators.ts";
import { runAdminCli } from "../../server/admin/cli.ts";
import { startTestService, type TestService } from "../helpers/server.ts";

let svc: TestService;
const trantoria = { model: "trantoria-1" as const, language_config: { languages: ["en" as const] } };

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
});

/** Every error answer must be the spec's body, with the request id also in the header. */
function expectErrorBody(body: unknown, res: Response | undefined, status: number) {
  const response = res!;
  expect(response.status).toBe(status);
  expect(validateErrorResponse(body)).toBe(true);
  const b = body as { statusCode: number; request_id: string; path: string };
  expect(b.statusCode).toBe(status);
  expect(b.request_id).toMatch(/^G-[0-9a-f]{8}$/);
  expect(response.headers.get("x-request-id")).toBe(b.request_id);
  expect(b.path).toBe(new URL(response.url).pathname);
}

async function create(client = svc.client(), body: object = trantoria, query?: { region?: "eu" | "us" | "eu-west" | "us-west" }) {
  return sdk.createLiveSession({ client, body: body as never, query });
}

describe("authentication", () => {
  test("absent and unknown keys answer 401", async () => {
    const none = await sdk.getLiveDefaults({ client: svc.client(""), headers: {} });
    expectErrorBody(none.error, none.response, 401);
    const unknown = await sdk.getLiveDefaults({ client: svc.client("nope") });
    expectErrorBody(unknown.error, unknown.response, 401);
  });

  test("403 api_key_scope_denied and ip_not_allowed", async () => {
    const readOnly = await svc.account({ scopes: ["sessions:read"] });
    const r = await create(svc.client(readOnly.key));
    expectErrorBody(r.error, r.response, 403);
    expect((r.error as { error: string }).error).toBe("api_key_scope_denied");
    expect((await sdk.getLiveDefaults({ client: svc.client(readOnly.key) })).response!.status).toBe(200);

    const remote = await svc.account({ allowedCidrs: ["10.0.0.0/8"] });
    const ip = await sdk.getLiveDefaults({ client: svc.client(remote.key) });
    expectErrorBody(ip.error, ip.response, 403);
    expect((ip.error as { error: string }).error).toBe("ip_not_allowed");
    const local = await svc.account({ allowedCidrs: ["127.0.0.0/8", "::1/128"] });
    expect((await sdk.getLiveDefaults({ client: svc.client(local.key) })).response!.status).toBe(200);
  });
});

describe("POST /v2/live", () => {
  test("201 with id, created_at and a single-session WebSocket URL", async () => {
    const a = await create();
    const b = await create();
    expect(a.response!.status).toBe(201);
    expect(validators.LiveSessionInitResponse(a.data)).toBe(true);
    const url = new URL(a.data!.url);
    expect(url.protocol).toBe("ws:");
    expect(url.pathname).toBe("/v2/live");
    expect(url.searchParams.get("token")!.length).toBeGreaterThanOrEqual(40);
    expect(a.data!.url).not.toBe(b.data!.url);
  });

  test("400 lists every invalid field, unknown members are rejected not stripped", async () => {
    const r = await create(svc.client(), { ...trantoria, sample_rate: 22050, unknown_member: 1, end_of_turn: { threshold: 1 } });
    expectErrorBody(r.error, r.response, 400);
    const errors = (r.error as { validation_errors: string[] }).validation_errors;
    expect(errors).toContain("unknown_member: unknown member (not allowed)");
    expect(errors.some((e) => e.startsWith("sample_rate:"))).toBe(true);
    expect(errors.some((e) => e.startsWith("end_of_turn.threshold:"))).toBe(true);
  });

  test("400 for malformed JSON and for a non-JSON content type (never 422)", async () => {
    for (const [body, type] of [["{bad", "application/json"], ["encoding=wav", "application/x-www-form-urlencoded"]] as const) {
      const res = await fetch(`${svc.running.url}/v2/live`, { method: "POST", body, headers: { "content-type": type, "x-service-key": svc.key } });
      expectErrorBody(await res.json(), res, 400);
    }
  });

  test("500 no inference endpoint: region of another cluster, a model not installed, a language the engine lacks", async () => {
    const region = await create(svc.client(), trantoria, { region: "us" });
    expectErrorBody(region.error, region.response, 500);
    expect((region.error as { message: string }).message).toStartWith("no inference endpoint available");
    expect((await create(svc.client(), trantoria, { region: "eu-west" })).response!.status).toBe(201);
    const model = await create(svc.client(), { model: "solaria-3" });
    expectErrorBody(model.error, model.response, 500);
    const lang = await create(svc.client(), { model: "trantoria-1", language_config: { languages: ["fr"] } });
    expectErrorBody(lang.error, lang.response, 500);
    expect((lang.error as { message: string }).message).toContain("fr");
  });

  test("402 insufficient_credits when the account has no credits", async () => {
    const broke = await svc.account({ plan: { creditsSeconds: 0 } });
    const r = await create(svc.client(broke.key));
    expectErrorBody(r.error, r.response, 402);
    expect((r.error as { error: string }).error).toBe("insufficient_credits");
  });

  test("429 at the concurrency limit; an unused URL frees its slot after 60 s", async () => {
    const acct = await svc.account({ plan: { maxConcurrentSessions: 2 } });
    const c = svc.client(acct.key);
    expect((await create(c)).response!.status).toBe(201);
    svc.clock.advance(30_000);
    expect((await create(c)).response!.status).toBe(201);
    const refused = await create(c);
    expectErrorBody(refused.error, refused.response, 429);
    svc.clock.advance(30_000); // the first URL is now 60 s old and unused
    expect((await create(c)).response!.status).toBe(201);
    expect((await create(c)).response!.status).toBe(429);
    svc.clock.advance(30_000);
    expect((await create(c)).response!.status).toBe(201);
  });
});

describe("reading and deleting sessions", () => {
  test("GET returns the session with its options; 404 for another account's id and unknown ids", async () => {
    const mine = await create(svc.client(), { ...trantoria, custom_metadata: { user: "alice" } });
    const got = await sdk.getLiveSession({ client: svc.client(), path: { id: mine.data!.id } });
    expect(got.response!.status).toBe(200);
    expect(validators.LiveSession(got.data)).toBe(true);
    expect(got.data!.status).toBe("queued");
    expect(got.data!.custom_metadata).toEqual({ user: "alice" });
    expect(got.data!.request_params).toMatchObject(trantoria);

    const other = await svc.account();
    const theirs = await sdk.getLiveSession({ client: svc.client(other.key), path: { id: mine.data!.id } });
    expectErrorBody(theirs.error, theirs.response, 404);
    const unknown = await sdk.getLiveSession({ client: svc.client(), path: { id: "00000000-0000-4000-8000-000000000000" } });
    expectErrorBody(unknown.error, unknown.response, 404);
    const notUuid = await fetch(`${svc.running.url}/v2/live/not-a-uuid`, { headers: { "x-service-key": svc.key } });
    expectErrorBody(await notUuid.json(), notUuid, 404);
  });

  test("DELETE: 403 while running, 202 once ended, then 404; the recording goes too", async () => {
    const acct = await svc.account();
    const c = svc.client(acct.key);
    const s = await create(c);
    const id = s.data!.id;
    const running = await sdk.deleteLiveSession({ client: c, path: { id } });
    expectErrorBody(running.error, running.response, 403);

    const file = path.join(svc.running.deps.recordingsDir, `${id}.flac`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "fLaC");
    svc.running.deps.store.updateSession(id, { status: "done", endedAt: svc.clock.now(), recordingPath: file });
    const deleted = await sdk.deleteLiveSession({ client: c, path: { id } });
    expect(deleted.response!.status).toBe(202);
    expect(existsSync(file)).toBe(false);
    const gone = await sdk.getLiveSession({ client: c, path: { id } });
    expectErrorBody(gone.error, gone.response, 404);
    expect((await sdk.deleteLiveSession({ client: c, path: { id } })).response!.status).toBe(404);
  });

  test("a URL that expired unused ends the session (error) and it can be deleted", async () => {
    const acct = await svc.account();
    const c = svc.client(acct.key);
    const s = await create(c);
    svc.clock.advance(60_000);
    const got = await sdk.getLiveSession({ client: c, path: { id: s.data!.id } });
    expect(got.data!.status).toBe("error");
    expect((await sdk.deleteLiveSession({ client: c, path: { id: s.data!.id } })).response!.status).toBe(202);
  });
});

describe("GET /v2/live", () => {
  test("pages through 250 sessions via next with no duplicate and no gap while sessions are inserted", async () => {
    const acct = await svc.account({ plan: { maxConcurrentSessions: 10_000 } });
    const c = svc.client(acct.key);
    const created: string[] = [];
    for (let i = 0; i < 250; i++) {
      if (i % 3 === 0) svc.clock.advance(1); // some share a timestamp, some do not
      created.push((await create(c)).data!.id);
    }
    const seen: string[] = [];
    let page = await sdk.listLiveSessions({ client: c, query: { limit: 100 } });
    let inserted = 0;
    for (;;) {
      expect(page.response!.status).toBe(200);
      expect(validators.LiveSessionList(page.data)).toBe(true);
      seen.push(...page.data!.items.map((s) => s.id));
      // New sessions arrive between pages; they are newer and must not shift the pages that follow.
      for (let k = 0; k < 7; k++, inserted++) {
        svc.clock.advance(1);
        await create(c);
      }
      if (!page.data!.next) break;
      const next = new URL(page.data!.next);
      expect(next.searchParams.get("cursor")).toBeTruthy();
      page = await sdk.listLiveSessions({ client: c, query: Object.fromEntries(next.searchParams) as never });
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...created].reverse());
    expect(inserted).toBeGreaterThan(0);
  });

  test("limit and offset bounds answer 400 naming the parameter; a forged cursor too", async () => {
    for (const [query, field] of [
      [{ limit: 0 }, "limit"],
      [{ limit: 101 }, "limit"],
      [{ offset: 1001 }, "offset"],
      [{ cursor: "forged" }, "cursor"],
      [{ status: ["bogus"] }, "status"],
      [{ date: "yesterday" }, "date"],
    ] as const) {
      const r = await sdk.listLiveSessions({ client: svc.client(), query: query as never });
      expectErrorBody(r.error, r.response, 400);
      expect((r.error as { validation_errors: string[] }).validation_errors.some((e) => e.startsWith(field))).toBe(true);
    }
  });

  test("filters: status (repeated), date, after_date, before_date, custom_metadata in both forms; only own sessions", async () => {
    const acct = await svc.account({ plan: { maxConcurrentSessions: 100 } });
    const c = svc.client(acct.key);
    const store = svc.running.deps.store;
    svc.clock.set(Date.parse("2026-04-10T08:00:00Z"));
    const a = (await create(c, { ...trantoria, custom_metadata: { user: "alice", tier: 2 } })).data!.id;
    svc.clock.set(Date.parse("2026-04-11T08:00:00Z"));
    const b = (await create(c, { ...trantoria, custom_metadata: { user: "bob", tier: 2 } })).data!.id;
    svc.clock.set(Date.parse("2026-04-12T08:00:00Z"));
    const d = (await create(c, { ...trantoria, custom_metadata: { user: "alice", tier: 3 } })).data!.id;
    store.updateSession(a, { status: "done", endedAt: svc.clock.now() });
    store.updateSession(b, { status: "error", endedAt: svc.clock.now() });
    await svc.account(); // another account's sessions never show

    const ids = async (query: Record<string, unknown>) => {
      const r = await sdk.listLiveSessions({ client: c, query: query as never });
      expect(r.response!.status).toBe(200);
      return r.data!.items.map((s) => s.id);
    };
    expect(await ids({})).toEqual([d, b, a]);
    expect(await ids({ status: ["done", "error"] })).toEqual([b, a]);
    expect(await ids({ status: ["queued"] })).toEqual([d]);
    expect(await ids({ date: "2026-04-11" })).toEqual([b]);
    expect(await ids({ after_date: "2026-04-10T09:00:00Z" })).toEqual([d, b]);
    expect(await ids({ before_date: "2026-04-12T00:00:00Z" })).toEqual([b, a]);
    // The contract's deepObject form, as the generated client serializes it (custom_metadata[user]=alice).
    expect(await ids({ custom_metadata: { user: "alice" } })).toEqual([d, a]);
    expect(await ids({ custom_metadata: { user: "alice", tier: "2" } })).toEqual([a]);
    // The JSON form (described by the parameter), alone and beside the per-key form.
    const raw = async (qs: string) => {
      const res = await fetch(`${svc.running.url}/v2/live?${qs}`, { headers: { "x-service-key": acct.key } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { items: { id: string }[] }).items.map((s) => s.id);
    };
    expect(await raw(`custom_metadata=${encodeURIComponent(JSON.stringify({ user: "alice" }))}`)).toEqual([d, a]);
    expect(await raw(`custom_metadata=${encodeURIComponent(JSON.stringify({ user: "alice", tier: 3 }))}`)).toEqual([d]);
    expect(await raw(`custom_metadata=${encodeURIComponent(JSON.stringify({ user: "alice" }))}&custom_metadata[tier]=2`)).toEqual([a]);
    expect(await raw("custom_metadata[user]=alice&custom_metadata[tier]=2")).toEqual([a]);
    expect(await ids({ limit: 1, offset: 1 })).toEqual([b]);
  });
});

describe("GET /v2/live/{id}/file", () => {
  test("200 whole FLAC, 206 with a correct Content-Range, 404 when the account does not record or the file is gone", async () => {
    const acct = await svc.account();
    const c = svc.client(acct.key);
    const id = (await create(c)).data!.id;
    const missing = await sdk.getLiveSessionRecording({ client: c, path: { id }, parseAs: "blob" });
    expectErrorBody(missing.error, missing.response, 404);

    const bytes = new Uint8Array(1000).map((_, i) => i % 251);
    const file = path.join(svc.running.deps.recordingsDir, `${id}.flac`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, bytes);
    svc.running.deps.store.updateSession(id, { status: "done", recordingPath: file, audioDurationS: 1 });

    const whole = await fetch(`${svc.running.url}/v2/live/${id}/file`, { headers: { "x-service-key": acct.key } });
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("audio/flac");
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(bytes);

    for (const [range, start, end] of [["bytes=0-99", 0, 99], ["bytes=900-", 900, 999], ["bytes=-10", 990, 999], ["bytes=990-5000", 990, 999]] as const) {
      const part = await fetch(`${svc.running.url}/v2/live/${id}/file`, { headers: { "x-service-key": acct.key, range } });
      expect(part.status).toBe(206);
      expect(part.headers.get("content-range")).toBe(`bytes ${start}-${end}/1000`);
      expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.slice(start, end + 1));
    }

    const norec = await svc.account({ plan: { recordAudio: false } });
    const nid = (await create(svc.client(norec.key))).data!.id;
    const r = await sdk.getLiveSessionRecording({ client: svc.client(norec.key), path: { id: nid } });
    expectErrorBody(r.error, r.response, 404);
  });
});

describe("helper reads and the LLM callback store", () => {
  test("defaults hold every option's applied default including the six end-of-turn members", async () => {
    const r = await sdk.getLiveDefaults({ client: svc.client() });
    expect(validators.LiveDefaults(r.data)).toBe(true);
    for (const k of ["threshold", "silence_ms", "stop_s", "reeval_ms", "window_s", "speech_dbfs"]) expect(r.data!.end_of_turn).toHaveProperty(k);
    expect(r.data!.endpointing).toBe(0.64);
  });

  test("capabilities come from the installed engines", async () => {
    const r = await sdk.getLiveCapabilities({ client: svc.client() });
    expect(validators.LiveCapabilities(r.data)).toBe(true);
    expect(r.data!.models.map((m) => m.model)).toEqual(["trantoria-1"]);
    expect(r.data!.models[0]!.languages).toEqual(["en"]);
  });

  test("POST /v1/callbacks/large-language-model: 204, 400 on a bad body", async () => {
    const ok = await sdk.storeLlmCallback({ client: svc.client(), body: { request_id: "G-0123abcd", customer_id: "c1", status: "ok", data: [] } });
    expect(ok.response!.status).toBe(204);
    const bad = await sdk.storeLlmCallback({ client: svc.client(), body: { request_id: "X-1", customer_id: "c1", status: "ok", data: {}, extra: 1 } as never });
    expectErrorBody(bad.error, bad.response, 400);
  });

  test("published documents are the generated ones", async () => {
    const res = await fetch(`${svc.running.url}/openapi.json`);
    expect(await res.text()).toBe(await Bun.file(path.resolve(import.meta.dir, "../../generated/openapi.json")).text());
    const doc = (await (await fetch(`${svc.running.url}/openapi.json`)).json()) as Record<string, unknown>;
    expect(doc["x-websocket"]).toBeDefined();
    expect((await fetch(`${svc.running.url}/asyncapi.json`)).status).toBe(200);
    expect((await fetch(`${svc.running.url}/docs`)).headers.get("content-type")).toContain("text/html");
  });

  test("every contract operation is routed (no framework 404 for a documented path)", async () => {
    for (const op of operations) {
      const p = op.path.replace("{id}", "00000000-0000-4000-8000-000000000000");
      const res = await fetch(`${svc.running.url}${p}`, { method: op.method, headers: { "x-service-key": "wrong" } });
      // The health probes are public (`security: []`): a wrong key does not matter there.
      if (op.path.startsWith("/health")) expect([200, 503]).toContain(res.status);
      else expect(res.status).toBe(401);
    }
  });
});

describe("admin API", () => {
  test("the CLI creates an account and a scoped key that then authenticates; a wrong token is refused", async () => {
    const lines: string[] = [];
    const env = { ADMIN_URL: svc.running.url, ADMIN_TOKEN: "test-admin-token" };
    expect(await runAdminCli(["accounts", "create", "--name", "acme", "--max-concurrent", "3", "--credits", "60"], env, (s) => lines.push(s))).toBe(0);
    const account = JSON.parse(lines.pop()!);
    expect(account.plan.maxConcurrentSessions).toBe(3);
    expect(await runAdminCli(["keys", "create", "--account", account.id, "--scopes", "sessions:read"], env, (s) => lines.push(s))).toBe(0);
    const { key, record } = JSON.parse(lines.pop()!);
    expect((await sdk.getLiveDefaults({ client: svc.client(key) })).response!.status).toBe(200);
    expect((await create(svc.client(key))).response!.status).toBe(403);
    expect(await runAdminCli(["plan", "set", "--account", account.id, "--record", "false"], env, (s) => lines.push(s))).toBe(0);
    expect(JSON.parse(lines.pop()!).recordAudio).toBe(false);
    expect(await runAdminCli(["keys", "revoke", "--key", record.id], env, (s) => lines.push(s))).toBe(0);
    expect((await sdk.getLiveDefaults({ client: svc.client(key) })).response!.status).toBe(401);
    await expect(runAdminCli(["accounts", "list"], { ...env, ADMIN_TOKEN: "wrong" }, () => {})).rejects.toThrow();
  });
});
