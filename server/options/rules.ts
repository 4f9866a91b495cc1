/** Rules across init members that a JSON schema does not express; each broken rule is one 400 line. */
import type { LiveSessionInit } from "../../generated/openapi/types.gen.ts";
import { refusedErrors } from "./refused.ts";

export function semanticErrors(init: LiveSessionInit): string[] {
  const errors: string[] = [];
  if ((init.encoding === "wav/alaw" || init.encoding === "wav/ulaw") && init.bit_depth !== undefined && init.bit_depth !== 8) {
    errors.push(`bit_depth: must be 8 with encoding ${init.encoding}`);
  }
  if (init.callback === true && !init.callback_config) errors.push("callback_config: is required when callback is true");
  if (init.model === "trantoria-1" && !(init.language_config?.languages?.length ?? 0)) {
    errors.push("language_config.languages: must name the spoken language with model trantoria-1");
  }
  const tr = init.realtime_processing;
  if (tr?.translation && !tr.translation_config) errors.push("realtime_processing.translation_config: is required when translation is true");
  if (tr?.custom_vocabulary && !tr.custom_vocabulary_config) errors.push("realtime_processing.custom_vocabulary_config: is required when custom_vocabulary is true");
  if (tr?.custom_spelling && !tr.custom_spelling_config) errors.push("realtime_processing.custom_spelling_config: is required when custom_spelling is true");
  const dc = init.diarization_config as { number_of_speakers?: number; max_speakers?: number } | undefined;
  if (dc?.number_of_speakers !== undefined && dc.max_speakers !== undefined && dc.number_of_speakers > dc.max_speakers) {
    errors.push("diarization_config.number_of_speakers: must not exceed max_speakers");
  }
  errors.push(...refusedErrors(init));
  return errors;
}
