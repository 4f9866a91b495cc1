/**
 * What this deployment really runs: the inference side's capabilities (engines and their add-ons)
 * narrowed to the add-ons whose models the gateway has. `end_of_turn` needs the turn model in
 * MODELS_DIR (`models pull smart-turn-v3`), `diarization` the speaker encoder
 * (`models pull resemblyzer-speaker`). Used by GET /v2/live/capabilities and by
 * the capability checks at POST /v2/live and when a session connects.
 */
import type { Feature, ModelCapability } from "../../workers/contract/types.ts";
import { speakerModelInstalled, turnModelInstalled } from "../../workers/public.ts";
import type { AppDeps } from "../deps.ts";

/** Why the gateway cannot run an add-on, or null when it can. */
export function missingAddon(feature: Feature, modelsDir: string): string | null {
  switch (feature) {
    case "end_of_turn":
      return turnModelInstalled(modelsDir) ? null : "the end-of-turn model is not installed (models pull smart-turn-v3)";
    case "diarization":
      return speakerModelInstalled(modelsDir) ? null : "the speaker-embedding model is not installed (models pull resemblyzer-speaker)";
    default:
      return null;
  }
}

/** The capabilities narrowed to the add-ons the gateway runs. */
export function narrowCapabilities(caps: ModelCapability[], modelsDir: string): ModelCapability[] {
  return caps.map((c) => ({ ...c, features: c.features.filter((f) => missingAddon(f, modelsDir) === null) }));
}

export async function offeredCapabilities(deps: Pick<AppDeps, "coordinator" | "config">): Promise<ModelCapability[]> {
  return narrowCapabilities(await deps.coordinator.capabilities(), deps.config.modelsDir);
}
