/**
 * The one rule deciding whether capabilities serve a session as asked (model, languages, add-ons,
 * translation targets and profile together). Used at session creation, when a session starts, and
 * by both coordinators before running a job. Pure: it reads only the capabilities it is given.
 */
import type { Feature, ModelCapability, PublicModel } from "./types.ts";

export interface ServeRequest {
  model: PublicModel | string;
  /** Languages the session allows; empty or absent means detect. */
  languages?: string[];
  features?: Feature[];
  translationTargets?: string[];
  profile?: string;
}

export type ServeVerdict = { ok: true; capability: ModelCapability } | { ok: false; reason: string };

/** Whether the capabilities can serve a session as asked. On refusal `reason` says what is missing. */
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
