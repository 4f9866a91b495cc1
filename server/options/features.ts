/** Which engine add-ons a session's init body asks for (input of the capability check). */
import type { Feature, LiveSessionInit } from "../../generated/openapi/types.gen.ts";

export function requestedFeatures(init: LiveSessionInit): Feature[] {
  const f = new Set<Feature>();
  const rp = init.realtime_processing;
  if (rp?.custom_vocabulary) f.add("custom_vocabulary");
  if (rp?.translation) f.add("translation");
  if (rp?.named_entity_recognition || init.named_entity_recognition) f.add("named_entity_recognition");
  if (rp?.sentiment_analysis) f.add("sentiment_analysis");
  if (init.pii) f.add("pii");
  if (init.diarization) f.add("diarization");
  if (init.end_of_turn) f.add("end_of_turn");
  if (init.numerals) f.add("numerals");
  return [...f];
}
