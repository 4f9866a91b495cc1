/**
 * `pii`: personal data found in an utterance is replaced, in the text and in the words, by
 * `[LABEL_N]` (the entity's type in capitals and its number in the session), action `mask`. The
 * `pii` message lists the masked entities with the offsets of their masks in the redacted text;
 * `text` (the data as heard) is included only with `return_entities`.
 */
import type { Entity, PiiConfig } from "../../../generated/openapi/types.gen.ts";
import { applyEdits, type TextState } from "../text.ts";
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

export const maskOf = (label: string, id: number | null): string => `[${label.toUpperCase()}${id === null ? "" : `_${id}`}]`;

/**
 * Redacts `state`. On a partial (`register` false) masks carry a number only for entities already
 * numbered, so hypotheses that change do not use up numbers.
 */
export function redact(state: TextState, language: string, settings: PiiSettings, registry: EntityRegistry, register: boolean): { state: TextState; entities: Entity[] } {
  const found = detectEntities(state.text, language).filter((d) => settings.types.has(d.label) && d.score >= settings.threshold);
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
