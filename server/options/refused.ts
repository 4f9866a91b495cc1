/**
 * Options the contract accepts in shape but this service does not run: a member marked `x-refused`
 * in contracts/schemas (values it refuses, and why). An init body setting one of those values is
 * refused with a 400 line naming the member, so no option is accepted and then ignored. The marks
 * are read from the generated schemas: nothing is listed here.
 */
import * as schemas from "../../generated/openapi/schemas.gen.ts";
import type { LiveSessionInit } from "../../generated/openapi/types.gen.ts";

interface JsonSchema {
  $ref?: string;
  properties?: Record<string, JsonSchema>;
  "x-refused"?: { values: unknown[]; reason: string };
}

const components = schemas as unknown as Record<string, JsonSchema>;

function resolve(schema: JsonSchema): JsonSchema {
  if (!schema.$ref) return schema;
  const target = components[`${schema.$ref.slice(schema.$ref.lastIndexOf("/") + 1)}Schema`];
  if (!target) throw new Error(`refused options: unknown schema ${schema.$ref}`);
  return resolve(target);
}

/** One refused member: its path in the init body, the values refused and why. */
export interface RefusedOption {
  path: string[];
  values: unknown[];
  reason: string;
}

/** The init body's schemas nest objects (no recursion): a walk of their members. */
function collect(schema: JsonSchema, path: string[], out: RefusedOption[]): RefusedOption[] {
  const own = schema["x-refused"];
  if (own) out.push({ path, values: own.values, reason: own.reason });
  for (const [name, member] of Object.entries(resolve(schema).properties ?? {})) collect(member, [...path, name], out);
  return out;
}

/** Every member of the init body marked `x-refused` in the contract. */
export const refusedOptions: readonly RefusedOption[] = collect(schemas.LiveSessionInitSchema as JsonSchema, [], []);

function valueAt(body: unknown, path: string[]): unknown {
  let v = body;
  for (const key of path) {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** One 400 line per refused value the init body sets: `<path>: <value> is not offered: <reason>`. */
export function refusedErrors(init: LiveSessionInit): string[] {
  return refusedOptions.flatMap(({ path, values, reason }) => {
    const value = valueAt(init, path);
    return value !== undefined && values.includes(value) ? [`${path.join(".")}: ${JSON.stringify(value)} is not offered: ${reason}`] : [];
  });
}
