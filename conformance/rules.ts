/**
 * Rules the service applies that the JSON schemas of the contract do not express (cross-field rules
 * of the init body, opaque or JSON-encoded query strings). A 400 on a schema-valid request is
 * accepted only when every `validation_errors` line matches one of these; each one met is counted
 * in the report so that the contract can grow an `if`/`then` (or `content`) for it.
 */
export interface KnownRule {
  /** Matches a `validation_errors` line. */
  line: RegExp;
  /** What the rule says, and where it is documented in prose. */
  rule: string;
}

export const crossFieldRules: KnownRule[] = [
  { line: /^bit_depth: must be 8 with encoding/, rule: "bit_depth must be 8 with wav/alaw and wav/ulaw (AudioEncoding description: A-law and mu-law are 8-bit)" },
  { line: /^callback_config: is required when callback is true/, rule: "callback_config is required when callback is true" },
  { line: /^language_config\.languages: must name the spoken language with model trantoria-1/, rule: "model trantoria-1 needs language_config.languages (LiveModel description: the spoken language must be set)" },
  { line: /^realtime_processing\.translation_config: is required when translation is true/, rule: "realtime_processing.translation_config is required when translation is true" },
  { line: /^realtime_processing\.custom_vocabulary_config: is required when custom_vocabulary is true/, rule: "realtime_processing.custom_vocabulary_config is required when custom_vocabulary is true" },
  { line: /^realtime_processing\.custom_spelling_config: is required when custom_spelling is true/, rule: "realtime_processing.custom_spelling_config is required when custom_spelling is true" },
  { line: /^diarization_config\.number_of_speakers: must not exceed max_speakers/, rule: "diarization_config.number_of_speakers must not exceed max_speakers" },
  { line: /^callback_config\.url: /, rule: "callback_config.url must be http(s) and reach a public address; loopback and private ranges only when the operator allows them (CallbackConfig.url description)" },
  { line: /^\(body\): nests objects and arrays deeper than \d+ levels/, rule: "JSON bodies nest at most 64 levels of objects and arrays (request body descriptions)" },
  { line: /^cursor: /, rule: "cursor is opaque: only values taken from `next` are accepted (parameter description)" },
  { line: /^custom_metadata: /, rule: "custom_metadata (JSON form) must be a JSON object (parameter description; the schema says only `string`)" },
  { line: /^(after_date|before_date|date): .*(before|after|both|together)/, rule: "date filters must not contradict each other" },
];

/** The rule a 400 line matches, or null. */
export function ruleOf(line: string): KnownRule | null {
  return crossFieldRules.find((r) => r.line.test(line)) ?? null;
}
