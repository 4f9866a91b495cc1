/**
 * Rules the service applies that the JSON schemas of the contract cannot express (a comparison of two
 * values, the callback address policy, which depends on DNS and the operator's settings, the JSON
 * nesting limit). The cross-field rules JSON Schema can state (`if`/`then`, `not`, `pattern`,
 * `propertyNames`) are in the contract and no longer listed here. A 400 on a schema-valid request is
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
  { line: /^diarization_config\.number_of_speakers: must not exceed max_speakers/, rule: "diarization_config.number_of_speakers must not exceed max_speakers" },
  { line: /^callback_config\.url: /, rule: "callback_config.url must be http(s) and reach a public address; loopback and private ranges only when the operator allows them (CallbackConfig.url description)" },
  { line: /^\(body\): nests objects and arrays deeper than \d+ levels/, rule: "JSON bodies nest at most 64 levels of objects and arrays (request body descriptions)" },
];

/** The rule a 400 line matches, or null. */
export function ruleOf(line: string): KnownRule | null {
  return crossFieldRules.find((r) => r.line.test(line)) ?? null;
}
