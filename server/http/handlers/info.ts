/** GET /v2/live/defaults, GET /v2/live/capabilities, POST /v1/callbacks/large-language-model. */
import type { LiveCapabilities, TranslationLanguageCode } from "../../../generated/openapi/types.gen.ts";
import { liveDefaults } from "../../options/defaults.ts";
import { offeredCapabilities } from "../../options/offered.ts";
import { defaultModel } from "../../serving.ts";
import type { Handler } from "../handler.ts";

/** The applied defaults; `model` is the one a session without a model gets here (a served one when any is). */
export const getLiveDefaults: Handler<"getLiveDefaults"> = async ({ deps, reply }) =>
  reply(200, { ...liveDefaults, model: defaultModel(await deps.coordinator.capabilities()) });

export const getLiveCapabilities: Handler<"getLiveCapabilities"> = async ({ deps, reply }) => {
  const caps = await offeredCapabilities(deps);
  const body: LiveCapabilities = {
    models: caps.map((c) => ({
      model: c.model,
      languages: c.languages,
      features: c.features,
      translation_targets: c.translationTargets as TranslationLanguageCode[],
      profiles: c.profiles as LiveCapabilities["models"][number]["profiles"],
    })),
  };
  return reply(200, body);
};

export const storeLlmCallback: Handler<"storeLlmCallback"> = async ({ principal, deps, body }) => {
  await deps.store.storeLlmCallback(principal.account.id, await body(), deps.clock.now());
  return new Response(null, { status: 204 });
};
