/**
 * `named_entity_recognition`: entities of the selected types tagged in a final utterance (action
 * `ner`), with their offsets in the utterance text and `entity_type` repeating `label` for clients of
 * the hosted variant. Text already masked by `pii` is not tagged again.
 */
import type { EntityName, EntitySelection, NamedEntity } from "../../../generated/openapi/types.gen.ts";
import { detectEntities } from "./detect.ts";
import type { EntityRegistry } from "./registry.ts";
import { type EntityType, resolveEntityTypes } from "./types.ts";

export interface NerSettings {
  types: Set<EntityType>;
  threshold: number;
}

export function nerSettings(config: EntitySelection | undefined, fallback: EntityName): NerSettings {
  return { types: resolveEntityTypes(config?.entities, fallback), threshold: config?.threshold ?? 0.5 };
}

export function tagEntities(text: string, language: string, settings: NerSettings, registry: EntityRegistry): NamedEntity[] {
  const masks = [...text.matchAll(/\[[A-Z_]+(?:_\d+)?\]/g)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  return detectEntities(text, language)
    .filter((d) => settings.types.has(d.label) && d.score >= settings.threshold)
    .filter((d) => !masks.some((m) => d.start < m.end && d.end > m.start))
    .map((d) => ({ label: d.label, entity_type: d.label, id: registry.idOf(d.label, d.text), action: "ner", score: d.score, text: d.text, start: d.start, end: d.end }));
}
