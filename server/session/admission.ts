/** Options a model refuses once the session connects (closed with 1011 `rejected: …`). */
import type { ModelCapability } from "../../workers/coordinator/types.ts";
import type { AppliedOptions } from "../options/defaults.ts";

/** Returns why the model refuses the session's options, or null when it runs them. */
export function refusedOption(applied: AppliedOptions, requested: Record<string, unknown>, caps: ModelCapability[]): string | null {
  const rt = applied.realtime_processing;
  if (!rt?.translation) return null;
  if (requested.pii != null) return "translation cannot be combined with pii redaction";
  const cap = caps.find((c) => c.model === applied.model);
  const targets = rt.translation_config?.target_languages ?? [];
  const unserved = targets.filter((t) => !cap?.translationTargets.includes(t));
  if (!cap || unserved.length > 0 || targets.length === 0) {
    return `translation target${unserved.length === 1 ? "" : "s"} ${unserved.join(", ") || "(none)"} not served by ${applied.model}`;
  }
  return null;
}
