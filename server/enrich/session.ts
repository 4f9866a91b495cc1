/**
 * The text add-ons as one enricher of the session's enrichment stage: partials and finals go through
 * `EnrichmentStage`; its messages follow their transcript; its findings join the session result.
 *
 * The stage and the language libraries behind it load on first use (`preloadTextAddons` starts it
 * in the background), so the service answers before they are loaded.
 */
import { loadOnce } from "../../common/load-once.ts";
import type { AppliedOptions } from "../options/defaults.ts";
import type { EnrichContext, Enricher, EnricherFactory } from "../session/enrich.ts";
import { EntityRegistry } from "./entities/registry.ts";
import type { BuildMessage, SessionEnrichments } from "./pipeline.ts";

/** What the text add-ons keep across a restart: the entity numbers given so far, and the findings. */
interface TextState {
  entities?: ReturnType<EntityRegistry["toJSON"]>;
  found?: SessionEnrichments;
}

/** Loads the text add-ons' code (once); sessions created meanwhile wait for it. */
export const preloadTextAddons = loadOnce(() => import("./pipeline.ts"));

export async function textEnricher(options: AppliedOptions, ctx: EnrichContext): Promise<Enricher | null> {
  const { EnrichmentStage } = await preloadTextAddons();
  const build: BuildMessage = (type, body) => ctx.messages.build(type, body as never) as never;
  const restored = ctx.restored?.text as TextState | undefined;
  const stage = new EnrichmentStage(options, build, EntityRegistry.from(restored?.entities), (addOn, err) => ctx.log.error("text add-on failed on an utterance", { addOn, err }), restored?.found);
  if (!stage.active) return null;
  return {
    name: "text",
    onFinal: (utterance, ref) => stage.process(ref.id, utterance, true),
    onPartial: (utterance, ref) => stage.process(ref.id, utterance, false),
    result: () => stage.resultMembers(),
    persist: (): TextState => ({ entities: stage.registry.toJSON(), found: stage.found }),
  };
}

/**
 * The default factory: the add-ons the service ships (the text add-ons above), empty when the
 * session asks for none. The composition root may pass another factory (e.g. one closing over
 * models it loaded: `server/session/audio-addons.ts`).
 */
export const createEnrichers: EnricherFactory = async (options, ctx) => [await textEnricher(options, ctx)].filter((e): e is Enricher => e !== null);
