/**
 * The rules across init members the service enforces, each with where the contract states it: a
 * JSON Schema `if`/`then` (or `not`) in contracts/schemas/options.yaml, which the body validator
 * applies first, or why JSON Schema cannot say it. Kept as a table so a test can walk it
 * (test/contracts/rules.test.ts); each broken rule is one 400 line `<field>: <rule>`.
 */
import type { LiveSessionInit } from "../../generated/openapi/types.gen.ts";
import { refusedErrors } from "./refused.ts";

export interface InitRule {
  /** The field path its 400 line starts with. */
  field: string;
  /** Where the contract says it: the schema construct, or (`inSchema: false`) why no JSON Schema can. */
  inSchema: boolean;
  where: string;
  /** The 400 line when `init` breaks the rule, else null. */
  check(init: LiveSessionInit): string | null;
}

export const initRules: readonly InitRule[] = [
  {
    field: "bit_depth",
    inSchema: true,
    where: "LiveSessionInit allOf: if encoding is wav/alaw or wav/ulaw then bit_depth const 8",
    check: (i) => ((i.encoding === "wav/alaw" || i.encoding === "wav/ulaw") && i.bit_depth !== undefined && i.bit_depth !== 8 ? `bit_depth: must be 8 with encoding wav/alaw or wav/ulaw` : null),
  },
  {
    field: "callback_config",
    inSchema: true,
    where: "LiveSessionInit allOf: if callback is true then callback_config is required",
    check: (i) => (i.callback === true && !i.callback_config ? "callback_config: is required when callback is true" : null),
  },
  {
    field: "language_config.languages",
    inSchema: true,
    where: "LiveSessionInit allOf: if model is trantoria-1 then language_config.languages is required with minItems 1",
    check: (i) => (i.model === "trantoria-1" && !(i.language_config?.languages?.length ?? 0) ? "language_config.languages: must name the spoken language with model trantoria-1" : null),
  },
  {
    field: "realtime_processing.translation_config",
    inSchema: true,
    where: "RealtimeProcessingConfig allOf: if translation is true then translation_config is required",
    check: (i) => (i.realtime_processing?.translation && !i.realtime_processing.translation_config ? "realtime_processing.translation_config: is required when translation is true" : null),
  },
  {
    field: "realtime_processing.custom_vocabulary_config",
    inSchema: true,
    where: "RealtimeProcessingConfig allOf: if custom_vocabulary is true then custom_vocabulary_config is required",
    check: (i) => (i.realtime_processing?.custom_vocabulary && !i.realtime_processing.custom_vocabulary_config ? "realtime_processing.custom_vocabulary_config: is required when custom_vocabulary is true" : null),
  },
  {
    field: "realtime_processing.custom_spelling_config",
    inSchema: true,
    where: "RealtimeProcessingConfig allOf: if custom_spelling is true then custom_spelling_config is required",
    check: (i) => (i.realtime_processing?.custom_spelling && !i.realtime_processing.custom_spelling_config ? "realtime_processing.custom_spelling_config: is required when custom_spelling is true" : null),
  },
  {
    field: "diarization_config.number_of_speakers",
    inSchema: false,
    where: "compares two members' values (number_of_speakers ≤ max_speakers): JSON Schema has no keyword relating one value to another; stated in DiarizationConfig's description",
    check: (i) => {
      const dc = i.diarization_config as { number_of_speakers?: number; max_speakers?: number } | undefined;
      return dc?.number_of_speakers !== undefined && dc.max_speakers !== undefined && dc.number_of_speakers > dc.max_speakers ? "diarization_config.number_of_speakers: must not exceed max_speakers" : null;
    },
  },
];

/** The 400 lines of `init`: one per broken rule, then one per refused option (`not` + `x-refused` in the schema). */
export function semanticErrors(init: LiveSessionInit): string[] {
  const errors = initRules.flatMap((r) => r.check(init) ?? []);
  errors.push(...refusedErrors(init));
  return errors;
}
