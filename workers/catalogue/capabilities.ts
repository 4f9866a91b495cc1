/**
 * What the installed models can serve: which catalogue entries are present in MODELS_DIR, which
 * entry serves each public model, the resulting `ModelCapability[]`, and the `canServe` check
 * used to validate a session's model + languages + add-ons.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ModelCapability, PublicModel } from "../coordinator/types.ts";
import { hasEngineFamily } from "../engines/registry.ts";
import type { EngineFamily, Feature } from "../engines/types.ts";
import { CATALOGUE, PUBLIC_MODELS } from "./entries.ts";
import type { CatalogueEntry, PublicModelDefinition } from "./types.ts";

/** True when every required file of the entry is a file in `modelsDir`. */
export function isInstalled(entry: CatalogueEntry, modelsDir: string): boolean {
  return entry.files.every((f) => {
    if (f.optional) return true;
    const path = join(modelsDir, f.path);
    return existsSync(path) && statSync(path).isFile();
  });
}

/** Entries of the catalogue whose required files are present. */
export function installedEntries(modelsDir: string, catalogue: CatalogueEntry[] = CATALOGUE): CatalogueEntry[] {
  return catalogue.filter((e) => isInstalled(e, modelsDir));
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
}

/** For each public model, the first candidate entry that is installed and whose family loads. */
export function servingEntries(modelsDir: string, opts: ResolveOptions = {}): ServingEntry[] {
  const catalogue = opts.catalogue ?? CATALOGUE;
  const available = opts.familyAvailable ?? hasEngineFamily;
  const out: ServingEntry[] = [];
  for (const model of opts.models ?? PUBLIC_MODELS) {
    for (const id of model.candidates) {
      const entry = catalogue.find((e) => e.id === id);
      if (!entry || entry.family === "vad" || entry.family === "turn" || entry.family === "speaker" || !available(entry.family)) continue;
      if (!isInstalled(entry, modelsDir)) continue;
      out.push({ model, entry });
      break;
    }
  }
  return out;
}

/** The capability a public model has when served by an entry (their intersection). */
export function capabilityOf(model: PublicModelDefinition, entry: CatalogueEntry): ModelCapability {
  const languages = model.languages === null ? [...entry.languages] : model.languages.filter((l) => entry.languages.includes(l));
  const features = model.features.filter((f) => entry.features.includes(f));
  const translationTargets = model.translationTargets.filter((t) => entry.translationTargets.includes(t));
  if (translationTargets.length === 0 && features.includes("translation")) features.splice(features.indexOf("translation"), 1);
  return { model: model.model, engine: entry.id, languages, features, translationTargets, profiles: [...model.profiles] };
}

/** Capabilities of every public model that an installed engine serves, read from `modelsDir` now. */
export function computeCapabilities(modelsDir: string, opts: ResolveOptions = {}): ModelCapability[] {
  return servingEntries(modelsDir, opts).map(({ model, entry }) => capabilityOf(model, entry));
}

export interface ServeRequest {
  model: PublicModel | string;
  /** Languages the session allows; empty or absent means detect. */
  languages?: string[];
  features?: Feature[];
  translationTargets?: string[];
  profile?: string;
}

export type ServeVerdict = { ok: true; capability: ModelCapability } | { ok: false; reason: string };

/**
 * Whether the capabilities can serve a session as asked (model, languages, add-ons, translation
 * targets and profile together). On refusal `reason` says what is missing.
 */
export function canServe(caps: ModelCapability[], req: ServeRequest): ServeVerdict {
  const capability = caps.find((c) => c.model === req.model);
  if (!capability) return { ok: false, reason: `no inference endpoint available for model ${req.model}` };
  const badLanguages = (req.languages ?? []).filter((l) => !capability.languages.includes(l));
  if (badLanguages.length > 0) {
    return { ok: false, reason: `model ${req.model} does not transcribe language(s): ${badLanguages.join(", ")}` };
  }
  const badFeatures = (req.features ?? []).filter((f) => !capability.features.includes(f));
  if (badFeatures.length > 0) {
    return { ok: false, reason: `model ${req.model} does not support: ${badFeatures.join(", ")}` };
  }
  const badTargets = (req.translationTargets ?? []).filter((t) => !capability.translationTargets.includes(t));
  if (badTargets.length > 0) {
    return { ok: false, reason: `model ${req.model} cannot translate into: ${badTargets.join(", ")}` };
  }
  if (req.profile !== undefined && !capability.profiles.includes(req.profile)) {
    return { ok: false, reason: `model ${req.model} has no latency profile ${req.profile}` };
  }
  return { ok: true, capability };
}
