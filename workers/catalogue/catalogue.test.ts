import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  CATALOGUE, PUBLIC_MODELS, canServe, catalogueEntry, computeCapabilities, installedEntries, isInstalled, servingEntries,
} from "./index.ts";

const SHARED_MODELS = resolve(import.meta.dir, "../../../shared/models");
const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempModelsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "models-"));
  temps.push(dir);
  return dir;
}
function link(modelsDir: string, rel: string): void {
  mkdirSync(join(modelsDir, rel, ".."), { recursive: true });
  symlinkSync(join(SHARED_MODELS, rel), join(modelsDir, rel));
}

describe("catalogue data", () => {
  test("entries have unique ids and well-formed files", () => {
    const ids = CATALOGUE.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const e of CATALOGUE) {
      expect(e.files.length).toBeGreaterThan(0);
      for (const f of e.files) {
        expect(f.url).toMatch(/^https:\/\//);
        expect(f.path.startsWith("/")).toBe(false);
        expect(f.path.includes("..")).toBe(false);
        if (f.sha256 !== null) expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
      }
    }
  });
  test("every public model lists known candidates, trantoria-1 ends with the isolated-token engine", () => {
    for (const m of PUBLIC_MODELS) for (const id of m.candidates) expect(catalogueEntry(id)).toBeDefined();
    expect(PUBLIC_MODELS.map((m) => m.model).sort()).toEqual(["solaria-1", "solaria-3", "trantoria-1"]);
    const trantoria = PUBLIC_MODELS.find((m) => m.model === "trantoria-1")!;
    expect(catalogueEntry(trantoria.candidates.at(-1)!)?.family).toBe("isolated-token");
  });
  test("pinned sizes and hashes agree with the shared model files", async () => {
    for (const e of CATALOGUE) {
      for (const f of e.files) {
        if (f.sha256 === null) continue;
        const file = Bun.file(join(SHARED_MODELS, f.path));
        if (!(await file.exists())) continue;
        expect(file.size).toBe(f.size!);
        const hash = new Bun.CryptoHasher("sha256").update(await file.arrayBuffer()).digest("hex");
        expect(hash).toBe(f.sha256);
      }
    }
  });
});

describe("capabilities from MODELS_DIR", () => {
  test("the shared models serve trantoria-1 (English) with the isolated-token engine and no solaria model", () => {
    const caps = computeCapabilities(SHARED_MODELS);
    const trantoria = caps.find((c) => c.model === "trantoria-1");
    expect(trantoria).toBeDefined();
    expect(trantoria!.engine).toBe("moonshine-micro-spelling");
    expect(trantoria!.languages).toEqual(["en"]);
    expect(trantoria!.translationTargets).toEqual([]);
    expect(trantoria!.features).not.toContain("translation");
    expect(trantoria!.profiles.length).toBeGreaterThan(0);
    expect(caps.some((c) => c.model.startsWith("solaria"))).toBe(false);
    expect(installedEntries(SHARED_MODELS).map((e) => e.id)).toContain("silero-vad");
  });

  test("capabilities follow files added to and removed from the directory", () => {
    const dir = tempModelsDir();
    expect(computeCapabilities(dir)).toEqual([]);
    link(dir, "moonshine-micro/spelling_cnn_meta.json");
    expect(computeCapabilities(dir)).toEqual([]); // meta alone is not a model
    link(dir, "moonshine-micro/spelling_cnn_mel.shrunk.onnx");
    expect(computeCapabilities(dir).map((c) => [c.model, c.engine])).toEqual([["trantoria-1", "moonshine-micro-spelling-int8"]]);
    link(dir, "moonshine-micro/spelling_cnn_mel.onnx");
    expect(computeCapabilities(dir).map((c) => c.engine)).toEqual(["moonshine-micro-spelling"]);
    unlinkSync(join(dir, "moonshine-micro/spelling_cnn_mel.onnx"));
    unlinkSync(join(dir, "moonshine-micro/spelling_cnn_mel.shrunk.onnx"));
    expect(computeCapabilities(dir)).toEqual([]);
  });

  test("a whisper entry serves both solaria models once its files are present and its family loads", () => {
    const dir = tempModelsDir();
    const entry = catalogueEntry("whisper-large-v3-turbo")!;
    for (const f of entry.files) {
      mkdirSync(join(dir, f.path, ".."), { recursive: true });
      writeFileSync(join(dir, f.path), "x");
    }
    expect(isInstalled(entry, dir)).toBe(true);
    const caps = computeCapabilities(dir, { familyAvailable: () => true });
    const s3 = caps.find((c) => c.model === "solaria-3")!;
    const s1 = caps.find((c) => c.model === "solaria-1")!;
    expect(s3.engine).toBe("whisper-large-v3-turbo");
    expect(s3.translationTargets).toEqual(["en"]);
    expect(s3.features).toContain("translation");
    expect(s3.languages).toContain("fr");
    expect(s3.languages).not.toContain("yue");
    expect(s1.features).not.toContain("translation");
    expect(s1.languages).toContain("yue");
    // with the family not loadable, nothing is served
    expect(computeCapabilities(dir, { familyAvailable: () => false })).toEqual([]);
    expect(servingEntries(dir, { familyAvailable: (f) => f !== "whisper" })).toEqual([]);
  });
});

describe("canServe", () => {
  const caps = computeCapabilities(SHARED_MODELS);
  test("accepts what the serving engine supports", () => {
    const v = canServe(caps, { model: "trantoria-1", languages: ["en"], features: ["end_of_turn"], profile: "low_latency" });
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.capability.engine).toBe("moonshine-micro-spelling");
  });
  test("refuses with a reason", () => {
    const cases: [Parameters<typeof canServe>[1], RegExp][] = [
      [{ model: "solaria-3" }, /no inference endpoint available/],
      [{ model: "trantoria-1", languages: ["en", "es"] }, /language.*es/],
      [{ model: "trantoria-1", features: ["translation"] }, /translation/],
      [{ model: "trantoria-1", translationTargets: ["fr"] }, /translate into: fr/],
      [{ model: "trantoria-1", profile: "warp" }, /profile warp/],
    ];
    for (const [req, reason] of cases) {
      const v = canServe(caps, req);
      expect(v.ok).toBe(false);
      if (!v.ok) expect(v.reason).toMatch(reason);
    }
  });
});
