/**
 * Engine family registry: maps an engine family to the loader that builds an `Engine` from a
 * model directory.
 *
 * Built-in families are resolved lazily by module path, so every thread (worker threads
 * included) can load any family without prior registration:
 *   - `isolated-token` → `./isolated/index.ts`
 *   - `whisper`        → `./whisper/index.ts`
 *   - `transducer`     → `./transducer/index.ts`
 * Each such module exports `loadEngine(dir: string, opts: EngineLoadOptions): Promise<Engine>`.
 * `registerEngineFamily` overrides a family in the current thread (tests, plug-ins).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Engine, EngineFamily } from "./types.ts";

export interface EngineLoadOptions {
  /** Catalogue entry id, reported back as `EngineInfo.name`. */
  name: string;
  /** onnxruntime intra-op threads per session (default 1). */
  threads?: number;
  /** Entry-specific settings from the catalogue (e.g. `{ preferQuantized: true }`). */
  options?: Record<string, unknown>;
}

export type EngineLoader = (dir: string, opts: EngineLoadOptions) => Promise<Engine>;

const BUILTIN_MODULES: Record<EngineFamily, string> = {
  "isolated-token": "./isolated/index.ts",
  whisper: "./whisper/index.ts",
  transducer: "./transducer/index.ts",
};

const registered = new Map<EngineFamily, EngineLoader>();

/** Registers (or replaces) the loader of a family in this thread. */
export function registerEngineFamily(family: EngineFamily, loader: EngineLoader): void {
  registered.set(family, loader);
}

/** True when a loader for the family is registered or its built-in module exists. */
export function hasEngineFamily(family: EngineFamily): boolean {
  if (registered.has(family)) return true;
  const rel = BUILTIN_MODULES[family];
  return rel !== undefined && existsSync(fileURLToPath(new URL(rel, import.meta.url)));
}

/** Resolves the loader of a family, importing its built-in module on first use. */
export async function engineLoader(family: EngineFamily): Promise<EngineLoader> {
  const known = registered.get(family);
  if (known) return known;
  const rel = BUILTIN_MODULES[family];
  if (!rel || !hasEngineFamily(family)) throw new Error(`no engine loader for family "${family}"`);
  const mod = (await import(new URL(rel, import.meta.url).href)) as { loadEngine?: EngineLoader };
  if (typeof mod.loadEngine !== "function") throw new Error(`${rel} does not export loadEngine(dir, opts)`);
  registered.set(family, mod.loadEngine);
  return mod.loadEngine;
}

/** Loads an engine of `family` from `dir`. */
export async function loadEngine(family: EngineFamily, dir: string, opts: EngineLoadOptions): Promise<Engine> {
  return (await engineLoader(family))(dir, opts);
}
