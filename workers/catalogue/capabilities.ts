/**
 * What the installed models can serve: which catalogue entries are present in MODELS_DIR, which
 * entry serves each public model and the resulting `ModelCapability[]` (checked against a session
 * by `canServe`, re-exported from the coordinator's interface).
 */
import { existsSync, statSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import type { ModelCapability } from "../contract/types.ts";
import { hasEngineFamily } from "../engines/registry.ts";
import type { EngineFamily } from "../engines/types.ts";
import { ALIGNMENT_FILE } from "../engines/whisper/alignment-file.ts";
import { CATALOGUE, PUBLIC_MODELS } from "./entries.ts";
import { isRecognizer } from "./families.ts";
import type { CatalogueEntry, PublicModelDefinition } from "./types.ts";

/** True when every required file of the entry, and of the entries it requires, is a file in `modelsDir`. */
export function isInstalled(entry: CatalogueEntry, modelsDir: string, catalogue: CatalogueEntry[] = CATALOGUE): boolean {
  const own = entry.files.every((f) => {
    if (f.optional) return true;
    const path = join(modelsDir, f.path);
    return existsSync(path) && statSync(path).isFile();
  });
  return (
    own &&
    (entry.requires ?? []).every((id) => {
      const dep = catalogue.find((e) => e.id === id);
      return dep !== undefined && dep !== entry && isInstalled(dep, modelsDir, catalogue);
    })
  );
}

/** Entries of the catalogue whose required files are present. */
export function installedEntries(modelsDir: string, catalogue: CatalogueEntry[] = CATALOGUE): CatalogueEntry[] {
  return catalogue.filter((e) => isInstalled(e, modelsDir, catalogue));
}

export interface ResolveOptions {
  catalogue?: CatalogueEntry[];
  models?: PublicModelDefinition[];
  /** Whether an engine family can be loaded (default: the engine registry). */
  familyAvailable?: (family: EngineFamily) => boolean;
}

export interface ServingEntry {
  model: PublicModelDefinition;
  entry: CatalogueEntry;
  /** The installed model times words by its own cross-attention alignment (see `alignsWords`). */
  alignsWords: boolean;
}

/** A Whisper model installed with its alignment decoder times words itself (`words_accurate_timestamps`). */
export function alignsWords(entry: CatalogueEntry, modelsDir: string): boolean {
  return entry.family === "whisper" && existsSync(join(modelsDir, entry.dir, ALIGNMENT_FILE));
}

/** For each public model, the first candidate entry that is installed and whose family loads. */
export function servingEntries(modelsDir: string, opts: ResolveOptions = {}): ServingEntry[] {
  const catalogue = opts.catalogue ?? CATALOGUE;
  const available = opts.familyAvailable ?? hasEngineFamily;
  const out: ServingEntry[] = [];
  for (const model of opts.models ?? PUBLIC_MODELS) {
    for (const id of model.candidates) {
      const entry = catalogue.find((e) => e.id === id);
      if (!entry || !isRecognizer(entry) || !available(entry.family)) continue;
      if (!isInstalled(entry, modelsDir, catalogue)) continue;
      out.push({ model, entry, alignsWords: alignsWords(entry, modelsDir) });
      break;
    }
  }
  return out;
}

/**
 * The serving entries of one models directory, read once and read again after anything under the
 * directory changes (a recursive watch), so that a decode does not look at the disk. Without a
 * watch (the directory is missing, or the platform refuses) every `current()` reads the directory,
 * as before.
 */
export class ServingTable {
  private entries: ServingEntry[] | null = null;
  private watcher: FSWatcher | null = null;

  constructor(
    private readonly modelsDir: string,
    private readonly opts: ResolveOptions = {},
  ) {
    try {
      this.watcher = watch(modelsDir, { recursive: true, persistent: false }, () => (this.entries = null));
      this.watcher.on("error", () => this.unwatch());
    } catch {
      this.watcher = null;
    }
  }

  /** Reads the directory now. */
  refresh(): ServingEntry[] {
    return (this.entries = servingEntries(this.modelsDir, this.opts));
  }

  /** The entries as last read, unless the directory changed since (or is not watched). */
  current(): ServingEntry[] {
    return this.watcher && this.entries ? this.entries : this.refresh();
  }

  close(): void {
    this.unwatch();
  }

  private unwatch(): void {
    this.watcher?.close();
    this.watcher = null;
    this.entries = null;
  }
}

/**
 * The capability a public model has when served by an entry (their intersection), with
 * `words_accurate_timestamps` where the installed model times words itself (`aligned`).
 */
export function capabilityOf(model: PublicModelDefinition, entry: CatalogueEntry, aligned = false): ModelCapability {
  const languages = model.languages === null ? [...entry.languages] : model.languages.filter((l) => entry.languages.includes(l));
  const features = model.features.filter((f) => entry.features.includes(f));
  if (aligned) features.push("words_accurate_timestamps");
  const translationTargets = model.translationTargets.filter((t) => entry.translationTargets.includes(t));
  if (translationTargets.length === 0 && features.includes("translation")) features.splice(features.indexOf("translation"), 1);
  return { model: model.model, engine: entry.id, languages, features, translationTargets, profiles: [...model.profiles] };
}

/** Capabilities of every public model that an installed engine serves, read from `modelsDir` now. */
export function computeCapabilities(modelsDir: string, opts: ResolveOptions = {}): ModelCapability[] {
  return servingEntries(modelsDir, opts).map(({ model, entry, alignsWords }) => capabilityOf(model, entry, alignsWords));
}

export { canServe, type ServeRequest, type ServeVerdict } from "../contract/can-serve.ts";
