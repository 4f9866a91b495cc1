/** GET /v2/live/defaults, GET /v2/live/capabilities, POST /v1/callbacks/large-language-model. */
import type { LiveCapabilities, TranslationLanguageCode } from "../../../generated/openapi/types.gen.ts";
import { liveDefaults } from "../../options/defaults.ts";
import { defaultModel } from "../../serving.ts";
import { readJsonBody } from "../body.ts";
import { json, type Handler } from "../handler.ts";

/** The applied defaults; `model` is the one a session without a model gets here (a served one when any is). */
export const getLiveDefaults: Handler = async ({ deps }) => json({ ...liveDefaults, model: defaultModel(await deps.coordinator.capabilities()) });

export const getLiveCapabilities: Handler = async ({ deps }) => {
  const caps = await deps.coordinator.capabilities();
  const body: LiveCapabilities = {
    models: caps.map((c) => ({
      model: c.model,
      languages: c.languages,
      features: c.features,
      translation_targets: c.translationTargets as TranslationLanguageCode[],
      profiles: c.profiles as LiveCapabilities["models"][number]["profiles"],
    })),
  };
  return json(body);
};

export const storeLlmCallback: Handler = async ({ request, principal, deps }) => {
  const body = await readJsonBody(request, "LlmCallbackRequest");
  await deps.store.storeLlmCallback(principal.account.id, body, deps.clock.now());
  return new Response(null, { status: 204 });
};
