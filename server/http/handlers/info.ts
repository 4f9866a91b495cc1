/** GET /v2/live/defaults, GET /v2/live/capabilities, POST /v1/callbacks/large-language-model. */
import type { LiveCapabilities, TranslationLanguageCode } from "../../../generated/openapi/types.gen.ts";
import { liveDefaults } from "../../options/defaults.ts";
import { offeredCapabilities } from "../../options/offered.ts";
import { readJsonBody } from "../body.ts";
import { json, type Handler } from "../handler.ts";

export const getLiveDefaults: Handler = () => json(liveDefaults);

export const getLiveCapabilities: Handler = async ({ deps }) => {
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
  return json(body);
};

export const storeLlmCallback: Handler = async ({ request, principal, deps }) => {
  const body = await readJsonBody(request, "LlmCallbackRequest");
  await deps.store.storeLlmCallback(principal.account.id, body, deps.clock.now());
  return new Response(null, { status: 204 });
};
