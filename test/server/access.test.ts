/**
 * How clients outside the project reach the service: the official SDK's `apiKey` option
 * (`x-gladia-key`, an alias of `x-service-key`), CORS for browser apps (`CORS_ORIGINS`), and the
 * one-line refusal of a start on a busy port.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GladiaClient } from "@gladiaio/sdk";
import path from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { startTestService, sharedModels, type TestService } from "../helpers/server.ts";
import { chunks, spellingSamples, startPipelineService, toPcm16, words, type Msg } from "../pipeline/helpers.ts";

const REPO = path.resolve(import.meta.dir, "../..");

describe("x-gladia-key", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startPipelineService();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  test("the official SDK with only apiKey and apiUrl creates a session and gets its transcript", async () => {
    const client = new GladiaClient({ apiKey: svc.key, apiUrl: svc.running.url });
    const session = client.liveV2().startSession({ model: "trantoria-1", language_config: { languages: ["en"] }, encoding: "wav/pcm", sample_rate: 16000, bit_depth: 16, channels: 1 } as never);
    const messages: Msg[] = [];
    session.on("message", (m) => messages.push(m as Msg));
    const ended = new Promise<{ code: number }>((resolve) => session.on("ended", (e) => resolve(e)));
    const errors: unknown[] = [];
    session.on("error", (e) => errors.push(e));
    for (const frame of chunks(toPcm16(spellingSamples(["b", "zero"])), 3200)) session.sendAudio(frame);
    session.stopRecording();
    const end = await Promise.race([ended, Bun.sleep(45_000).then(() => ({ code: -1 }))]);
    expect(errors).toEqual([]);
    expect(end.code).toBe(1000);
    const finals = messages.filter((m) => m.type === "transcript" && m.data.is_final).map((m) => words(m.data.utterance.text));
    expect(finals).toEqual(["b", "zero"]);
    const id = session.sessionId!;
    const read = await fetch(`${svc.running.url}/v2/live/${id}`, { headers: { "x-gladia-key": svc.key } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { id: string }).id).toBe(id);
  }, 90_000);

  test("an unknown x-gladia-key is refused like an unknown x-service-key; x-service-key wins when both are sent", async () => {
    const url = `${svc.running.url}/v2/live`;
    expect((await fetch(url, { headers: { "x-gladia-key": "nope" } })).status).toBe(401);
    expect((await fetch(url, { headers: { "x-service-key": svc.key, "x-gladia-key": "nope" } })).status).toBe(200);
    expect((await fetch(url, { headers: { "x-service-key": "nope", "x-gladia-key": svc.key } })).status).toBe(401);
  });

  test("the contract documents the alias as an alternative security scheme", async () => {
    const doc = (await (await fetch(`${svc.running.url}/openapi.json`)).json()) as {
      security: Record<string, string[]>[];
      components: { securitySchemes: Record<string, { type: string; in: string; name: string }> };
    };
    expect(doc.security).toEqual([{ serviceKey: [] }, { gladiaKey: [] }]);
    expect(doc.components.securitySchemes.gladiaKey).toMatchObject({ type: "apiKey", in: "header", name: "x-gladia-key" });
  });
});

describe("CORS", () => {
  const preflight = (url: string, origin: string) =>
    fetch(url, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "x-service-key, content-type" },
    });

  test("off by default: a preflight is not answered and answers carry no CORS headers", async () => {
    const svc = await startTestService();
    try {
      const pre = await preflight(`${svc.running.url}/v2/live`, "http://app.example");
      expect(pre.status).toBe(405);
      expect(pre.headers.get("access-control-allow-origin")).toBeNull();
      const res = await fetch(`${svc.running.url}/v2/live`, { headers: { origin: "http://app.example", "x-service-key": svc.key } });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await svc.stop();
    }
  });

  test("CORS_ORIGINS lists origins: preflights answered 204 for them only, answers readable with x-request-id exposed", async () => {
    const svc = await startTestService({ env: { CORS_ORIGINS: "http://app.example, https://other.example:8443" } });
    try {
      const url = `${svc.running.url}/v2/live`;
      const pre = await preflight(url, "http://app.example");
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-origin")).toBe("http://app.example");
      expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
      expect(pre.headers.get("access-control-allow-methods")).toContain("DELETE");
      const allowed = (pre.headers.get("access-control-allow-headers") ?? "").split(/,\s*/);
      for (const h of ["x-service-key", "x-gladia-key", "content-type"]) expect(allowed).toContain(h);
      const stranger = await preflight(url, "http://evil.example");
      expect(stranger.status).toBe(204);
      expect(stranger.headers.get("access-control-allow-origin")).toBeNull();

      const res = await fetch(url, { method: "POST", headers: { origin: "https://other.example:8443", "x-service-key": svc.key, "content-type": "application/json" }, body: JSON.stringify({ model: "trantoria-1", language_config: { languages: ["en"] } }) });
      expect(res.status).toBe(201);
      expect(res.headers.get("access-control-allow-origin")).toBe("https://other.example:8443");
      expect(res.headers.get("access-control-expose-headers")).toContain("x-request-id");
      expect(res.headers.get("vary")).toContain("Origin");
      const error = await fetch(url, { headers: { origin: "http://app.example" } });
      expect(error.status).toBe(401);
      expect(error.headers.get("access-control-allow-origin")).toBe("http://app.example");
      const foreign = await fetch(url, { headers: { origin: "http://evil.example", "x-service-key": svc.key } });
      expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await svc.stop();
    }
  });

  test("CORS_ORIGINS=* allows every origin", async () => {
    const svc = await startTestService({ env: { CORS_ORIGINS: "*" } });
    try {
      const pre = await preflight(`${svc.running.url}/v2/live/defaults`, "http://anywhere.example");
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    } finally {
      await svc.stop();
    }
  });

  test("a malformed CORS_ORIGINS refuses the start with a clear message", async () => {
    await expect(startTestService({ env: { CORS_ORIGINS: "app.example" } })).rejects.toThrow(/CORS_ORIGINS: "app.example" is not an origin/);
  });
});

describe("start on a busy port", () => {
  test("one clear line on stderr, exit code 1, no key spent", async () => {
    const holder = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("busy") });
    const dataDir = mkdtempSync(path.join(tmpdir(), "live-stt-busy-"));
    try {
      const proc = Bun.spawn(["bun", "server/main.ts"], {
        cwd: REPO,
        env: { ...process.env, PORT: String(holder.port), HOST: "127.0.0.1", DATA_DIR: dataDir, MODELS_DIR: sharedModels, LOG_LEVEL: "error" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      expect(code).toBe(1);
      expect(err.trim().split("\n")).toEqual([`live-stt: cannot start: port ${holder.port} on 127.0.0.1 is already in use: stop the process holding it or set PORT to a free port`]);
      expect(out).not.toContain("API key of the default account");
    } finally {
      holder.stop(true);
    }
  }, 30_000);
});

describe("methods a path does not define", () => {
  test("405 with Allow listing the path's methods; unknown paths stay 404", async () => {
    const svc = await startTestService();
    try {
      const call = (method: string, p: string) => fetch(`${svc.running.url}${p}`, { method, headers: { "x-service-key": svc.key } });
      const put = await call("PUT", "/v2/live/defaults");
      expect(put.status).toBe(405);
      expect(put.headers.get("allow")).toBe("GET");
      expect(put.headers.get("x-request-id")).toMatch(/^G-[0-9a-f]{8}$/);
      expect(((await put.json()) as { statusCode: number }).statusCode).toBe(405);
      const del = await call("DELETE", "/v2/live/capabilities");
      expect(del.status).toBe(405);
      expect(del.headers.get("allow")).toBe("GET");
      const patch = await call("PATCH", "/v2/live/3f1c8a52-3a43-4bf5-a3a4-6f3f0f7f9a11");
      expect(patch.status).toBe(405);
      expect(patch.headers.get("allow")).toBe("GET, DELETE");
      expect((await call("DELETE", "/v2/live/3f1c8a52-3a43-4bf5-a3a4-6f3f0f7f9a11")).status).toBe(404);
      expect((await call("GET", "/v2/nothing-here")).status).toBe(404);
    } finally {
      await svc.stop();
    }
  });
});
