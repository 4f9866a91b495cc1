/**
 * Negative data: given a schema and a value valid against it, every single-site mutation that makes
 * it invalid (missing required member, wrong type, out-of-range number or length, unknown member,
 * value outside an enum), each naming the field it breaks.
 */
import type { JsonSchema } from "./contract.ts";

type Json = Record<string, any>;

export type MutationKind = "missing_required" | "wrong_type" | "out_of_range" | "unknown_member" | "bad_enum";

export interface Mutation {
  kind: MutationKind;
  /** Path of the broken field from the body root (member names and array indexes). */
  path: (string | number)[];
  /** The whole mutated value. */
  value: unknown;
}

/** The member a mutation is expected to be reported under (last named segment of its path). */
export function fieldName(m: Pick<Mutation, "path">): string | null {
  for (let i = m.path.length - 1; i >= 0; i--) if (typeof m.path[i] === "string") return m.path[i] as string;
  return null;
}

export const UNKNOWN_MEMBER = "zz_unknown_member";

function typesOf(s: Json, deref: (s: JsonSchema) => JsonSchema): Set<string> {
  const out = new Set<string>();
  const visit = (n: Json) => {
    const d = deref(n) as Json;
    if (Array.isArray(d.type)) d.type.forEach((t: string) => out.add(t));
    else if (typeof d.type === "string") out.add(d.type);
    else if ("const" in d || Array.isArray(d.enum)) for (const v of d.const !== undefined ? [d.const] : d.enum) out.add(v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
    for (const a of (d.anyOf ?? d.oneOf ?? []) as Json[]) visit(a);
    if (!d.type && !d.anyOf && !d.oneOf && !("const" in d) && !d.enum && d.properties) out.add("object");
  };
  visit(s);
  if (out.has("integer")) out.add("number");
  return out;
}

const samples: Record<string, unknown> = { string: "not-a-number-or-bool", number: 12345.5, integer: 7, boolean: true, object: { x: 1 }, array: [1], null: null };

/** Replacement values of a field, each of a kind the field's schema rules out. */
function leafMutations(s: Json, deref: (s: JsonSchema) => JsonSchema): { kind: MutationKind; value: unknown }[] {
  const d = deref(s) as Json;
  const out: { kind: MutationKind; value: unknown }[] = [];
  const allowed = typesOf(d, deref);
  if (allowed.size > 0) {
    for (const t of ["string", "number", "boolean", "object", "array"]) {
      if (!allowed.has(t) && !(t === "number" && allowed.has("integer"))) {
        out.push({ kind: "wrong_type", value: samples[t] });
        break;
      }
    }
    if (allowed.has("integer") && !allowed.has("number")) out.push({ kind: "wrong_type", value: 1.5 });
  }
  if (Array.isArray(d.enum)) out.push({ kind: "bad_enum", value: typeof d.enum[0] === "number" ? 12345 : "not-a-documented-value" });
  const num = typeof d.type === "string" && (d.type === "number" || d.type === "integer") ? d : Array.isArray(d.type) ? d : null;
  if (num) {
    if (typeof num.minimum === "number") out.push({ kind: "out_of_range", value: num.minimum - 1 });
    if (typeof num.maximum === "number") out.push({ kind: "out_of_range", value: num.maximum + 1 });
    if (typeof num.exclusiveMinimum === "number") out.push({ kind: "out_of_range", value: num.exclusiveMinimum });
    if (typeof num.exclusiveMaximum === "number") out.push({ kind: "out_of_range", value: num.exclusiveMaximum });
  }
  if (d.type === "string") {
    if (typeof d.maxLength === "number") out.push({ kind: "out_of_range", value: "x".repeat(d.maxLength + 1) });
    if (typeof d.minLength === "number" && d.minLength > 0) out.push({ kind: "out_of_range", value: "" });
    if (d.format === "uuid" || d.format === "date-time" || d.format === "date" || d.format === "uri" || d.pattern) out.push({ kind: "out_of_range", value: "::not valid::" });
  }
  if (d.type === "array" && typeof d.minItems === "number" && d.minItems > 0) out.push({ kind: "out_of_range", value: [] });
  return out;
}

function setAt(root: unknown, path: (string | number)[], value: unknown, remove = false): unknown {
  if (path.length === 0) return value;
  const copy: any = Array.isArray(root) ? [...root] : { ...(root as Json) };
  const [head, ...rest] = path;
  if (rest.length === 0) {
    if (remove) delete copy[head as string];
    else copy[head as string] = value;
  } else copy[head as string] = setAt(copy[head as string], rest, value, remove);
  return copy;
}

/** Chooses the alternative of a union schema that a value matches, by shape. */
function branchFor(s: Json, value: unknown, deref: (s: JsonSchema) => JsonSchema): Json | null {
  const alts = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (!alts) return s;
  for (const a of alts) {
    const d = deref(a) as Json;
    const t = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
    const types = typesOf(d, deref);
    if (types.has(t) || (t === "number" && types.has("integer"))) return d;
  }
  return null;
}

/** Every single-site mutation of `value` under `schema` (unchecked: callers keep those the schema refuses). */
export function mutationsOf(schema: JsonSchema, value: unknown, deref: (s: JsonSchema) => JsonSchema): Mutation[] {
  const out: Mutation[] = [];
  const walk = (s0: JsonSchema, v: unknown, path: (string | number)[]) => {
    const s = branchFor(deref(s0) as Json, v, deref);
    if (!s) return;
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required: string[] = s.required ?? [];
      for (const r of required) if (r in (v as Json)) out.push({ kind: "missing_required", path: [...path, r], value: setAt(value, [...path, r], undefined, true) });
      if (s.additionalProperties === false) out.push({ kind: "unknown_member", path: [...path, UNKNOWN_MEMBER], value: setAt(value, [...path, UNKNOWN_MEMBER], true) });
      for (const [name, sub] of Object.entries(props)) {
        for (const m of leafMutations(sub as Json, deref)) out.push({ kind: m.kind, path: [...path, name], value: setAt(value, [...path, name], m.value) });
        if (name in (v as Json)) walk(sub, (v as Json)[name], [...path, name]);
      }
    } else if (Array.isArray(v) && s.items) {
      v.forEach((item, i) => {
        for (const m of leafMutations(s.items, deref)) out.push({ kind: m.kind, path: [...path, i], value: setAt(value, [...path, i], m.value) });
        walk(s.items, item, [...path, i]);
      });
    }
  };
  walk(schema, value, []);
  return out;
}

/** Invalid string forms of a query or header parameter, from its schema. */
export function parameterMutations(schema: JsonSchema, deref: (s: JsonSchema) => JsonSchema): { kind: MutationKind; value: string }[] {
  const d0 = deref(schema) as Json;
  const d = d0.type === "array" && d0.items ? (deref(d0.items) as Json) : d0;
  const out: { kind: MutationKind; value: string }[] = [];
  if (d.type === "integer" || d.type === "number") {
    out.push({ kind: "wrong_type", value: "abc" });
    if (typeof d.minimum === "number") out.push({ kind: "out_of_range", value: String(d.minimum - 1) });
    if (typeof d.maximum === "number") out.push({ kind: "out_of_range", value: String(d.maximum + 1) });
    if (d.type === "integer") out.push({ kind: "wrong_type", value: "1.5" });
  }
  if (Array.isArray(d.enum)) out.push({ kind: "bad_enum", value: "not-a-documented-value" });
  if (d.type === "string" && (d.format === "date" || d.format === "date-time" || d.format === "uuid")) out.push({ kind: "out_of_range", value: "not-a-date" });
  return out;
}
