/**
 * `pii`: personal data found in an utterance is replaced, in the text and in the words, by
 * `[LABEL_N]` (the entity's type in capitals and its number in the session), action `mask`. The
 * `pii` message lists the masked entities with the offsets of their masks in the redacted text;
 * `text` (the data as heard) is included only with `return_entities`.
 * A partial may hold the first digits of a number whose end is not heard yet: when numeric types are
 * selected, partials also mask every number in them as `[NUMBER]`.
 */
import type { Entity, PiiConfig } from "../../../generated/openapi/types.gen.ts";
import { CARDINAL_WORDS, servesLanguage } from "../numerals.ts";
import { applyEdits, type Edit, type TextState } from "../text.ts";
import { detectEntities } from "./detect.ts";
import type { EntityRegistry } from "./registry.ts";
import { type EntityType, resolveEntityTypes } from "./types.ts";

export interface PiiSettings {
  types: Set<EntityType>;
  threshold: number;
  returnEntities: boolean;
}

export function piiSettings(config: PiiConfig): PiiSettings {
  return { types: resolveEntityTypes(config.entities, "pii"), threshold: config.threshold ?? 0.5, returnEntities: config.return_entities ?? false };
}

const NUMERIC: ReadonlySet<EntityType> = new Set(["phone_number", "credit_card_number", "iban", "ssn", "ip_address"]);

/** Every number of a partial: runs of digits and of cardinal number words (a lone "one" too). */
function numberEdits(text: string, language: string): Edit[] {
  const words = servesLanguage(language) ? [...CARDINAL_WORDS].join("|") : "(?!)";
  const unit = `(?:\\d+|(?:${words})(?:-(?:${words}))?)`;
  const run = new RegExp(`(?<![\\p{L}\\p{N}])${unit}(?:(?:[\\s,.-]+|\\s+(?:and|oh)\\s+)${unit})*(?![\\p{L}\\p{N}])`, "giu");
  return [...text.matchAll(run)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: "[NUMBER]" }));
}

const maskOf = (label: string, id: number | null): string => `[${label.toUpperCase()}${id === null ? "" : `_${id}`}]`;

/**
 * Redacts `state`. On a partial (`register` false) masks carry a number only for entities already
 * numbered, so hypotheses that change do not use up numbers.
 */
export function redact(state: TextState, language: string, settings: PiiSettings, registry: EntityRegistry, register: boolean): { state: TextState; entities: Entity[] } {
  const found = detectEntities(state.text, language).filter((d) => settings.types.has(d.label) && d.score >= settings.threshold);
  if (!register && [...settings.types].some((t) => NUMERIC.has(t))) {
    const numbers = numberEdits(state.text, language).filter((e) => !found.some((d) => e.start < d.end && e.end > d.start));
    if (found.length === 0) return { state: applyEdits(state, numbers).state, entities: [] };
    const masks = found.map((d) => ({ start: d.start, end: d.end, text: maskOf(d.label, registry.find(d.label, d.text)) }));
    return { state: applyEdits(state, [...masks, ...numbers]).state, entities: [] };
  }
  if (found.length === 0) return { state, entities: [] };
  const ids = found.map((d) => (register ? registry.idOf(d.label, d.text) : registry.find(d.label, d.text)));
  const { state: next, map } = applyEdits(state, found.map((d, i) => ({ start: d.start, end: d.end, text: maskOf(d.label, ids[i]!) })));
  const landed = map.landed();
  const entities = found.map((d, i): Entity => ({
    label: d.label,
    id: ids[i] ?? null,
    action: "mask",
    score: d.score,
    ...(settings.returnEntities ? { text: d.text } : {}),
    start: landed[i]?.start ?? null,
    end: landed[i]?.end ?? null,
  }));
  return { state: next, entities };
}
