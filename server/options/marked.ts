/**
 * Init-body members the contract marks with an annotation (`x-refused`, `x-ignored`): each marked
 * member's path, the values the mark covers and why. Read from the generated schemas, so nothing is
 * listed by hand.
 */
import * as schemas from "../../generated/openapi/schemas.gen.ts";

export type Mark = "x-refused" | "x-ignored";

interface JsonSchema {
  $ref?: string;
  properties?: Record<string, JsonSchema>;
  "x-refused"?: { values: unknown[]; reason: string };
  "x-ignored"?: { values: unknown[]; reason: string };
}

const components = schemas as unknown as Record<string, JsonSchema>;

function resolve(schema: JsonSchema): JsonSchema {
  if (!schema.$ref) return schema;
  const target = components[`${schema.$ref.slice(schema.$ref.lastIndexOf("/") + 1)}Schema`];
  if (!target) throw new Error(`marked options: unknown schema ${schema.$ref}`);
  return resolve(target);
}

/** One marked member: its path in the init body, the values the mark covers and why. */
export interface MarkedOption {
  path: string[];
  values: unknown[];
  reason: string;
}

/** The init body's schemas nest objects (no recursion): a walk of their members. */
function collect(mark: Mark, schema: JsonSchema, path: string[], out: MarkedOption[]): MarkedOption[] {
  const own = schema[mark];
  if (own) out.push({ path, values: own.values, reason: own.reason });
  for (const [name, member] of Object.entries(resolve(schema).properties ?? {})) collect(mark, member, [...path, name], out);
  return out;
}

/** Every member of the init body carrying `mark` in the contract. */
export function markedOptions(mark: Mark): MarkedOption[] {
  return collect(mark, schemas.LiveSessionInitSchema as JsonSchema, [], []);
}

export function valueAt(body: unknown, path: string[]): unknown {
  let v = body;
  for (const key of path) {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** The marked members `body` sets to a value the mark covers. */
export function setMarked(options: readonly MarkedOption[], body: unknown): MarkedOption[] {
  return options.filter(({ path, values }) => {
    const value = valueAt(body, path);
    return value !== undefined && values.includes(value);
  });
}
