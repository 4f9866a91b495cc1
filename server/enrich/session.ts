/**
 * The text add-ons as one enricher of the session's enrichment stage: partials and finals go through
 * `EnrichmentStage`; its messages follow their transcript; its findings join the session result.
 */
import type { AppliedOptions } from "../options/defaults.ts";
import type { EnrichContext, Enricher } from "../session/enrich.ts";
import { type BuildMessage, EnrichmentStage } from "./pipeline.ts";

export function textEnricher(options: AppliedOptions, ctx: EnrichContext): Enricher | null {
  const build: BuildMessage = (type, body) => ctx.messages.build(type, body as never) as never;
  const stage = new EnrichmentStage(options, build, undefined, (addOn, err) => ctx.log.error("text add-on failed on an utterance", { addOn, err }));
  if (!stage.active) return null;
  return {
    name: "text",
    onFinal: (utterance, ref) => stage.process(ref.id, utterance, true),
    onPartial: (utterance, ref) => stage.process(ref.id, utterance, false),
    result: () => stage.resultMembers(),
  };
}
