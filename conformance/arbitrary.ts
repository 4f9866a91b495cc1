/**
 * fast-check arbitraries built from JSON Schema (the subset the contracts use: $ref, const, enum,
 * type unions, anyOf/oneOf, objects with required/optional/additional members, arrays with bounds,
 * strings with length, pattern and formats, bounded numbers). Values shrink towards small, plain
 * forms, which is what makes counterexamples short.
 */
import fc from "fast-check";
import type { JsonSchema } from "./contract.ts";

type Json = Record<string, any>;

export interface ArbitraryOptions {
  /** Follows a `$ref` to its schema. */
  deref(schema: JsonSchema): JsonSchema;
  /** Largest array / dictionary size generated (default 3). */
  maxItems?: number;
  /** Nesting depth beyond which optional members are left out (default 6). */
  maxDepth?: number;
}

const jsonLeaf: fc.Arbitrary<unknown> = fc.oneof(fc.string({ maxLength: 8 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean(), fc.constant(null));
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: "small", maxDepth: 2 },
  jsonLeaf,
  fc.array(jsonLeaf, { maxLength: 3 }),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), jsonLeaf, { maxKeys: 3 }),
);

const isoDate = fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T23:59:59Z"), noInvalidDate: true });

function stringArbitrary(s: Json, maxItems: number): fc.Arbitrary<string> {
  switch (s.format) {
    case "date-time":
      return isoDate.map((d) => d.toISOString());
    case "date":
      return isoDate.map((d) => d.toISOString().slice(0, 10));
    case "uuid":
      return fc.uuid();
    case "uri":
      return fc.constantFrom("https://example.com/hook", "http://example.org/a/b?c=d", "https://callbacks.example.net/live");
    case "binary":
      return fc.string({ maxLength: 8 });
  }
  if (typeof s.pattern === "string") {
    const re = new RegExp(s.pattern);
    let arb = fc.stringMatching(re);
    if (s.minLength !== undefined || s.maxLength !== undefined) {
      arb = arb.filter((v) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity));
    }
    return arb;
  }
  const minLength = s.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(s.maxLength ?? minLength + 12, minLength + 12 * maxItems));
  return fc.string({ minLength, maxLength });
}

function numberArbitrary(s: Json, integer: boolean): fc.Arbitrary<number> {
  const lo = typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum : s.minimum;
  const hi = typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum : s.maximum;
  if (integer) {
    const min = lo === undefined ? -1_000_000 : typeof s.exclusiveMinimum === "number" ? Math.floor(lo) + 1 : Math.ceil(lo);
    const max = hi === undefined ? Math.max(min, 1_000_000) : typeof s.exclusiveMaximum === "number" ? Math.ceil(hi) - 1 : Math.floor(hi);
    return fc.integer({ min, max });
  }
  return fc.double({
    min: lo ?? -1e6,
    max: hi ?? 1e6,
    minExcluded: typeof s.exclusiveMinimum === "number",
    maxExcluded: typeof s.exclusiveMaximum === "number",
    noNaN: true,
    noDefaultInfinity: true,
  }).map((v) => (Object.is(v, -0) ? 0 : v));
}

/** An arbitrary of values valid against `schema`. */
export function arbitraryOf(schema: JsonSchema, opts: ArbitraryOptions, depth = 0): fc.Arbitrary<unknown> {
  const maxItems = opts.maxItems ?? 3;
  const maxDepth = opts.maxDepth ?? 6;
  const s = opts.deref(schema) as Json;
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const alternatives = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((a) => arbitraryOf(a, opts, depth + 1)));
  if (Array.isArray(s.type)) {
    return fc.oneof(...(s.type as string[]).map((t) => arbitraryOf({ ...s, type: t }, opts, depth)));
  }
  switch (s.type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return numberArbitrary(s, true);
    case "number":
      return numberArbitrary(s, false);
    case "string":
      return stringArbitrary(s, maxItems);
    case "array": {
      const minLength = s.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(s.maxItems ?? maxItems, maxItems));
      const items = s.items ? arbitraryOf(s.items, opts, depth + 1) : anyJson;
      return s.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength });
    }
    case "object":
      return objectArbitrary(s, opts, depth, maxItems, maxDepth);
  }
  if (s.properties) return objectArbitrary(s, opts, depth, maxItems, maxDepth);
  return anyJson;
}

function objectArbitrary(s: Json, opts: ArbitraryOptions, depth: number, maxItems: number, maxDepth: number): fc.Arbitrary<unknown> {
  const props = (s.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set<string>(s.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(props)) {
    if (!required.has(name) && depth >= maxDepth) continue;
    model[name] = arbitraryOf(sub, opts, depth + 1);
  }
  const known = fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
  const extra = s.additionalProperties;
  if (extra === false || Object.keys(props).length > 0) return known;
  // A free-form map (e.g. custom_metadata, spelling dictionaries).
  const values = extra === true || extra === undefined ? jsonLeaf : arbitraryOf(extra as JsonSchema, opts, depth + 1);
  const names = (s.propertyNames as Json | undefined)?.pattern;
  const nameOk = typeof names === "string" ? (k: string) => new RegExp(names, "u").test(k) : () => true;
  return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !["__proto__", "constructor"].includes(k) && nameOk(k)), values, { maxKeys: maxItems });
}
