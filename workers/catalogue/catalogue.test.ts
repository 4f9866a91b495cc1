import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  CATALOGUE, PUBLIC_MODELS, ServingTable, canServe, catalogueEntry, computeCapabilities, installedEntries, isInstalled, servingEntries,
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

/** Writes placeholder files for an entry's required files (and those of the entries it requires). */
function placeholders(modelsDir: string, id: string): void {
  const entry = catalogueEntry(id)!;
  for (const dep of entry.requires ?? []) placeholders(modelsDir, dep);
  for (const f of entry.files) {
    if (f.optional) continue;
    mkdirSync(join(modelsDir, f.path, ".."), { recursive: true });
    writeFileSync(join(modelsDir, f.path), "x");
  }
}
const all = () => true;

describe("catalogue data", () => {
  test("entries have unique ids and well-formed files and sources", () => {
    const ids = CATALOGUE.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const e of CATALOGUE) {
      expect(e.files.length).toBeGreaterThan(0);
      for (const f of e.files) {
        if (f.url !== undefined) expect(f.url).toMatch(/^https:\/\//);
        else expect(f.optional || (e.sources?.length ?? 0) > 0).toBe(true);
        expect(f.path.startsWith(`${e.dir}/`)).toBe(true);
        expect(f.path.includes("..")).toBe(false);
        if (f.sha256 !== null) expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
      }
      for (const id of e.requires ?? []) expect(catalogueEntry(id)).toBeDefined();
      for (const s of e.sources ?? []) {
        const pins = s.kind === "ct2-whisper" ? s.packages : s.kind === "extract" ? [s.package] : [];
        for (const p of pins) {
          expect(p.sha256).toMatch(/^[0-9a-f]{64}$/);
          expect(p.file.startsWith(`${p.name.replaceAll("-", "_")}-${p.version}`)).toBe(true);
        }
      }
    }
  });
  test("public models: Whisper serves all three; the isolated-token recognizer serves none", () => {
    for (const m of PUBLIC_MODELS) for (const id of m.candidates) expect(catalogueEntry(id)).toBeDefined();
    expect(PUBLIC_MODELS.map((m) => m.model).sort()).toEqual(["solaria-1", "solaria-3", "trantoria-1"]);
    const candidates = (model: string) => PUBLIC_MODELS.find((m) => m.model === model)!.candidates;
    expect(candidates("solaria-1").slice(0, 2)).toEqual(["whisper-small", "whisper-base"]);
    expect(candidates("solaria-3")).toEqual(["whisper-small", "whisper-base"]);
    expect(candidates("trantoria-1")[0]).toBe("whisper-tiny.en");
    for (const m of PUBLIC_MODELS) for (const id of m.candidates) expect(catalogueEntry(id)!.family).not.toBe("isolated-token");
    expect(catalogueEntry("moonshine-micro-spelling")).toBeDefined();
    // every entry the bootstrap installs has a pinned registry source
    for (const id of ["whisper-tiny.en", "whisper-base", "whisper-assets", "silero-vad"]) {
      expect(catalogueEntry(id)!.sources?.some((s) => s.kind !== "local")).toBe(true);
    }
  });
  test("pinned sizes and hashes agree with the shared model files", async () => {
    let checked = 0;
    for (const e of CATALOGUE) {
      for (const f of e.files) {
        if (f.sha256 === null) continue;
        const file = Bun.file(join(SHARED_MODELS, f.path));
        if (!(await file.exists())) continue;
        expect(file.size).toBe(f.size!);
        const hash = new Bun.CryptoHasher("sha256").update(await file.arrayBuffer()).digest("hex");
        expect(hash).toBe(f.sha256);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe("capabilities from MODELS_DIR", () => {
  test("the shared models alone (VAD, assets, isolated-token recognizer) serve no public model", () => {
    expect(computeCapabilities(SHARED_MODELS)).toEqual([]);
    const installed = installedEntries(SHARED_MODELS).map((e) => e.id);
    expect(installed).toContain("silero-vad");
    expect(installed).toContain("whisper-assets");
    expect(installed).toContain("moonshine-micro-spelling");
  });

  test("a serving table is read once and read again after the directory changes", async () => {
    const dir = tempModelsDir();
    const table = new ServingTable(dir, { familyAvailable: all });
    try {
      expect(table.current()).toEqual([]);
      placeholders(dir, "whisper-tiny.en");
      for (let i = 0; i < 50 && table.current().length === 0; i++) await Bun.sleep(20);
      expect(table.current().map((s) => s.entry.id)).toEqual(["whisper-tiny.en"]);
      const read = table.current();
      expect(table.current()).toBe(read); // unchanged directory: the same table, no second read
      rmSync(join(dir, "whisper-assets"), { recursive: true });
      for (let i = 0; i < 50 && table.current().length > 0; i++) await Bun.sleep(20);
      expect(table.current()).toEqual([]);
    } finally {
      table.close();
    }
  });

  test("capabilities follow files added to and removed from the directory", () => {
    const dir = tempModelsDir();
    expect(computeCapabilities(dir, { familyAvailable: all })).toEqual([]);
    link(dir, "moonshine-micro/spelling_cnn_meta.json");
    link(dir, "moonshine-micro/spelling_cnn_mel.onnx");
    expect(computeCapabilities(dir, { familyAvailable: all })).toEqual([]); // command words only
    placeholders(dir, "whisper-tiny.en");
    expect(computeCapabilities(dir, { familyAvailable: all }).map((c) => [c.model, c.engine])).toEqual([["trantoria-1", "whisper-tiny.en"]]);
    // a Whisper entry without the tokenizer assets it requires is not installed
    rmSync(join(dir, "whisper-assets"), { recursive: true });
    expect(isInstalled(catalogueEntry("whisper-tiny.en")!, dir)).toBe(false);
    expect(computeCapabilities(dir, { familyAvailable: all })).toEqual([]);
  });

  test("words_accurate_timestamps is listed where the Whisper model has its alignment decoder", () => {
    const dir = tempModelsDir();
    placeholders(dir, "whisper-tiny.en");
    const features = () => computeCapabilities(dir, { familyAvailable: all })[0]!.features;
    expect(features()).not.toContain("words_accurate_timestamps");
    writeFileSync(join(dir, "whisper-tiny.en", "decoder_alignment.onnx"), "x");
    expect(features()).toContain("words_accurate_timestamps");
    expect(servingEntries(dir, { familyAvailable: all })[0]!.alignsWords).toBe(true);
  });

  test("solaria-1 and solaria-3 prefer whisper-small, else whisper-base; trantoria-1 prefers tiny.en over the transducer", () => {
    const dir = tempModelsDir();
    placeholders(dir, "whisper-base");
    placeholders(dir, "zipformer-en-streaming");
    const engines = () => Object.fromEntries(computeCapabilities(dir, { familyAvailable: all }).map((c) => [c.model, c.engine]));
    expect(engines()).toEqual({ "solaria-3": "whisper-base", "solaria-1": "whisper-base", "trantoria-1": "zipformer-en-streaming" });
    placeholders(dir, "whisper-small");
    placeholders(dir, "whisper-tiny.en");
    expect(engines()).toEqual({ "solaria-3": "whisper-small", "solaria-1": "whisper-small", "trantoria-1": "whisper-tiny.en" });
    const caps = computeCapabilities(dir, { familyAvailable: all });
    const s3 = caps.find((c) => c.model === "solaria-3")!;
    const s1 = caps.find((c) => c.model === "solaria-1")!;
    const t1 = caps.find((c) => c.model === "trantoria-1")!;
    expect(s3.translationTargets).toEqual(["en"]);
    expect(s3.features).toContain("translation");
    expect(s3.languages).toContain("fr");
    expect(s1.features).not.toContain("translation");
    expect(s1.languages).toContain("de");
    expect(t1.languages).toEqual(["en"]);
    expect(t1.features).not.toContain("translation");
    // with the family not loadable, nothing is served
    expect(computeCapabilities(dir, { familyAvailable: () => false })).toEqual([]);
    expect(servingEntries(dir, { familyAvailable: (f) => f !== "whisper" }).map((s) => s.entry.id)).toEqual(["zipformer-en-streaming"]);
  });
});

describe("canServe", () => {
  const dir = mkdtempSync(join(tmpdir(), "models-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  placeholders(dir, "whisper-tiny.en");
  const caps = computeCapabilities(dir, { familyAvailable: all });
  test("accepts what the serving engine supports", () => {
    const v = canServe(caps, { model: "trantoria-1", languages: ["en"], features: ["end_of_turn"], profile: "low_latency" });
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.capability.engine).toBe("whisper-tiny.en");
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
