/**
 * The text add-ons as one enricher of the session's enrichment stage: partials and finals go through
 * `EnrichmentStage`; its messages follow their transcript; its findings join the session result.
 *
 * The stage and the language libraries behind it load on first use (`preloadTextAddons` starts it
 * in the background), so the service answers before they are loaded.
 */
import type { AppliedOptions } from "../options/defaults.ts";
import type { EnrichContext, Enricher } from "../session/enrich.ts";
import type { BuildMessage } from "./pipeline.ts";

let pipeline: Promise<typeof import("./pipeline.ts")> | null = null;

/** Loads the text add-ons' code (once); sessions created meanwhile wait for it. */
export function preloadTextAddons(): Promise<typeof import("./pipeline.ts")> {
  pipeline ??= import("./pipeline.ts");
  pipeline.catch(() => (pipeline = null));
  return pipeline;
}

export async function textEnricher(options: AppliedOptions, ctx: EnrichContext): Promise<Enricher | null> {
  const { EnrichmentStage } = await preloadTextAddons();
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
