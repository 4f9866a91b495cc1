/**
 * Entity types this service detects, the presets naming groups of them, and the resolution of an
 * EntitySelection (`entities` as a preset or type, a list of them, or `{enable, disable}`). The names
 * are the contract's `EntityName` enum, so an unknown one is refused at init by schema validation.
 */
import type { EntityName, EntityTypeSelection } from "../../../generated/openapi/types.gen.ts";

export const ENTITY_TYPES = [
  "name",
  "organization",
  "location",
  "location_city",
  "location_state",
  "location_country",
  "date",
  "time",
  "money",
  "phone_number",
  "email_address",
  "url",
  "ip_address",
  "credit_card_number",
  "iban",
  "ssn",
] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

const LOCATIONS: EntityType[] = ["location", "location_city", "location_state", "location_country"];

/** Presets: names for groups of types. `all` is every type. */
export const PRESETS: Record<string, readonly EntityType[]> = {
  pii: ["name", ...LOCATIONS, "phone_number", "email_address", "ip_address", "credit_card_number", "iban", "ssn"],
  pci: ["credit_card_number"],
  phi: ["name", ...LOCATIONS, "date", "phone_number", "email_address", "url", "ip_address", "ssn"],
  contact: ["phone_number", "email_address", "url", ...LOCATIONS],
  financial: ["credit_card_number", "iban", "money"],
  name: ["name"],
  location: LOCATIONS,
  date: ["date", "time"],
  organization: ["organization"],
  number: ["phone_number", "credit_card_number", "iban", "ssn", "money"],
  ner: ["name", "organization", ...LOCATIONS, "date", "time", "money"],
  all: ENTITY_TYPES,
};

const expand = (name: EntityName): EntityType[] | null => {
  const preset = PRESETS[name];
  if (preset) return [...preset];
  return (ENTITY_TYPES as readonly string[]).includes(name) ? [name as EntityType] : null;
};

/**
 * The set of types a selection names. Omitted: `fallback`. An `{enable, disable}` object starts from
 * `fallback` when `enable` is absent, adds `enable`, then removes `disable`.
 */
export function resolveEntityTypes(selection: EntityTypeSelection | undefined, fallback: EntityName): Set<EntityType> {
  const of = (names: EntityName[]) => new Set(names.flatMap((n) => expand(n) ?? []));
  if (selection === undefined) return of([fallback]);
  if (typeof selection === "string") return of([selection]);
  if (Array.isArray(selection)) return of(selection);
  const out = selection.enable ? of(selection.enable) : of([fallback]);
  for (const t of of(selection.disable ?? [])) out.delete(t);
  return out;
}
