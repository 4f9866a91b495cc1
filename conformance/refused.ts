/**
 * Values the contract marks as refused (`x-refused` on a member: `values` the service does not run,
 * and the `reason`). The schema still accepts them, so generated bodies hold them; a body that sets
 * one is expected to be answered 400 with a `validation_errors` line naming the member, never
 * accepted and then ignored. Values marked `x-ignored` are the opposite: options the specification
 * has accepted and ignored, which must be accepted and named in the 201's `x-ignored-options`.
 */
import type { JsonSchema } from "./contract.ts";

type Json = Record<string, any>;

/** Paths (`a.b.c`) of the members of `value` set to a value their schema marks with `mark`. */
export function markedMembers(mark: "x-refused" | "x-ignored", schema: JsonSchema, value: unknown, deref: (s: JsonSchema) => JsonSchema, path: string[] = []): string[] {
  const own = (schema as Json)[mark] as { values?: unknown[] } | undefined;
  const out = own?.values?.some((v) => v === value) ? [path.join(".")] : [];
  const s = deref(schema) as Json;
  if (!s.properties || value === null || typeof value !== "object" || Array.isArray(value)) return out;
  for (const [name, member] of Object.entries(value as Json)) {
    const sub = s.properties[name] as JsonSchema | undefined;
    if (sub) out.push(...markedMembers(mark, sub, member, deref, [...path, name]));
  }
  return out;
}

/** Paths (`a.b.c`) of the members of `value` set to a value their schema marks `x-refused`. */
export function refusedMembers(schema: JsonSchema, value: unknown, deref: (s: JsonSchema) => JsonSchema): string[] {
  return markedMembers("x-refused", schema, value, deref);
}

/**
 * Paths of the members of `value` set to a value their schema marks `x-ignored` (the specification's
 * "accepted and ignored"): such a body must be accepted, and its 201 name them in `x-ignored-options`.
 */
export function ignoredMembers(schema: JsonSchema, value: unknown, deref: (s: JsonSchema) => JsonSchema): string[] {
  return markedMembers("x-ignored", schema, value, deref);
}

/** A copy of `value` without the members `refusedMembers` finds (bodies meant to be accepted). */
export function withoutRefused(schema: JsonSchema, value: unknown, deref: (s: JsonSchema) => JsonSchema): unknown {
  const out = structuredClone(value);
  for (const path of refusedMembers(schema, value, deref)) {
    const keys = path.split(".");
    let o = out as Json;
    for (const k of keys.slice(0, -1)) o = o[k];
    delete o[keys[keys.length - 1]!];
  }
  return out;
}

/** Every member of `schema` marked `x-refused`: its path and the values refused (for tools outside this suite). */
export function refusedPaths(schema: JsonSchema, deref: (s: JsonSchema) => JsonSchema, path: string[] = [], depth = 0): { path: string[]; values: unknown[] }[] {
  const own = (schema as Json)["x-refused"] as { values?: unknown[] } | undefined;
  const out = own?.values ? [{ path, values: own.values }] : [];
  const s = deref(schema) as Json;
  if (depth < 16) for (const [name, member] of Object.entries<JsonSchema>(s.properties ?? {})) out.push(...refusedPaths(member, deref, [...path, name], depth + 1));
  return out;
}
