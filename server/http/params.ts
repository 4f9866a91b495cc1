/**
 * Query parameters read and checked against the contract's parameter schemas (generated/openapi.json):
 * values are coerced from strings by their schema type, arrays collect repeated parameters, deepObject
 * parameters (`name[key]=value`, OpenAPI's serialization of an object parameter `name`) become objects.
 * A plain `name=value` of a deepObject parameter is not that style and is left to the handler (the
 * contract may describe another form there, as `custom_metadata` does). Errors read "<parameter>: <rule>".
 */
import { createRequire } from "node:module";
import type Ajv2020 from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import openapi from "../../generated/openapi.json" with { type: "json" };
import { errorsOf, type Operation } from "../../generated/validators.ts";

interface ParameterObject {
  name: string;
  in: "query" | "header" | "path" | "cookie";
  required?: boolean;
  style?: string;
  schema: { type?: string | string[]; items?: unknown; [k: string]: unknown };
}

const doc = openapi as unknown as { paths: Record<string, Record<string, any>>; components: { parameters: Record<string, ParameterObject> } };

let ajvInstance: Ajv2020 | null = null;

const load = createRequire(import.meta.url);

/**
 * The Ajv instance holding the OpenAPI document, built with the first query that is read (Ajv
 * itself is loaded then, not at import: it is a large share of the service's start-up).
 */
function ajv(): Ajv2020 {
  if (ajvInstance) return ajvInstance;
  const Ajv = (load("ajv/dist/2020.js") as { default: typeof Ajv2020 }).default;
  const addFormats = (load("ajv-formats") as { default: typeof import("ajv-formats").default }).default;
  // verbose: errors carry their schema, so that the contract's `x-rule` wording applies (errorsOf).
  ajvInstance = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, verbose: true });
  addFormats(ajvInstance);
  ajvInstance.addSchema(openapi as object, "openapi.json");
  return ajvInstance;
}

interface CompiledParam {
  param: ParameterObject;
  /** Whether the parameter is in deepObject style (`name[key]=value`). */
  deep: boolean;
  validate: ValidateFunction;
}

const cache = new Map<string, CompiledParam[]>();

function deref(p: ParameterObject | { $ref: string }): ParameterObject {
  if ("$ref" in p) return doc.components.parameters[p.$ref.split("/").pop()!]!;
  return p;
}

function pointer(...parts: string[]): string {
  return parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
}

function compiledParams(op: Operation): CompiledParam[] {
  const key = `${op.method} ${op.path}`;
  let list = cache.get(key);
  if (list) return list;
  const item = doc.paths[op.path]!;
  const method = op.method.toLowerCase();
  const operation = item[method]!;
  list = [];
  const sources: [string, (ParameterObject | { $ref: string })[]][] = [
    ["", item.parameters ?? []],
    [method, operation.parameters ?? []],
  ];
  for (const [where, params] of sources) {
    params.forEach((raw, index) => {
      const param = deref(raw);
      if (param.in !== "query") return;
      const schemaRef =
        "$ref" in raw
          ? `openapi.json#/${pointer("components", "parameters", raw.$ref.split("/").pop()!, "schema")}`
          : `openapi.json#/${pointer("paths", op.path, ...(where ? [where] : []), "parameters", String(index), "schema")}`;
      const validate = ajv().compile({ $ref: schemaRef });
      list!.push({ param, deep: param.style === "deepObject", validate });
    });
  }
  cache.set(key, list);
  return list;
}

function typeOf(schema: ParameterObject["schema"]): string | undefined {
  return Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
}

const INTEGER = /^-?[0-9]+$/;
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;

function coerce(value: string, type: string | undefined): unknown {
  if (type === "integer" || type === "number") {
    // Decimal notation only: `Number()` would also read "0x10", "1e3", " 7 " and "Infinity".
    if (!(type === "integer" ? INTEGER : DECIMAL).test(value)) return value;
    return Number(value);
  }
  if (type === "boolean") return value === "true" ? true : value === "false" ? false : value;
  return value;
}

/** Prefixes an error of the parameter's own value ("(body): rule", "[0]: rule", "a: rule") with its name. */
function qualify(name: string, error: string): string {
  if (error.startsWith("(body)")) return name + error.slice("(body)".length);
  if (error.startsWith("[")) return name + error;
  return `${name}.${error}`;
}

export interface ParsedQuery {
  values: Record<string, unknown>;
  errors: string[];
}

/** Reads the query parameters of `op` from `search`. Keys of the result are the contract's names. */
export function parseQuery(op: Operation, search: URLSearchParams): ParsedQuery {
  const values: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const { param, deep, validate } of compiledParams(op)) {
    let value: unknown;
    if (deep) {
      // Everything between `name[` and the last `]` is the key (a key may hold brackets).
      const obj: Record<string, string> = {};
      const prefix = param.name + "[";
      for (const [k, v] of search) if (k.startsWith(prefix) && k.endsWith("]")) obj[k.slice(prefix.length, -1)] = v;
      if (Object.keys(obj).length === 0) continue;
      value = obj;
    } else if (typeOf(param.schema) === "array") {
      const all = search.getAll(param.name);
      if (all.length === 0) continue;
      const itemType = typeOf((param.schema.items ?? {}) as ParameterObject["schema"]);
      value = all.flatMap((v) => v.split(",")).map((v) => coerce(v, itemType));
    } else {
      const all = search.getAll(param.name);
      if (all.length === 0) {
        if (param.required) errors.push(`${param.name}: is required`);
        continue;
      }
      if (all.length > 1) {
        errors.push(`${param.name}: must be given once`);
        continue;
      }
      value = coerce(all[0]!, typeOf(param.schema));
    }
    if (!validate(value)) {
      for (const e of errorsOf(validate.errors)) errors.push(qualify(param.name, e));
      continue;
    }
    values[param.name] = value;
  }
  return { values, errors };
}
