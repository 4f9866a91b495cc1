/** Facts of an operation read from the contract: its request body's schema, its query parameters' defaults. */
import openapi from "../../generated/openapi.json" with { type: "json" };
import type { SchemaName } from "../../generated/validators.ts";
import type { Operation } from "../../generated/validators.ts";

interface OperationObject {
  requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> };
  parameters?: ({ $ref: string } | ParameterObject)[];
}
interface ParameterObject {
  name: string;
  in: string;
  schema?: { default?: unknown };
}

const doc = openapi as unknown as { paths: Record<string, Record<string, OperationObject>>; components: { parameters: Record<string, ParameterObject> } };
const paths = doc.paths;

/** The schema name of `op`'s JSON request body; throws for an operation that takes none. */
export function bodySchemaOf(op: Operation): SchemaName {
  const ref = paths[op.path]?.[op.method.toLowerCase()]?.requestBody?.content?.["application/json"]?.schema?.$ref;
  if (!ref) throw new Error(`${op.operationId} has no JSON request body in the contract`);
  return ref.slice(ref.lastIndexOf("/") + 1) as SchemaName;
}

/** The `default:` of each query parameter of `op` that declares one. */
export function queryDefaults(op: Operation): Record<string, unknown> {
  const item = paths[op.path] ?? {};
  const params = [...((item as { parameters?: OperationObject["parameters"] }).parameters ?? []), ...(item[op.method.toLowerCase()]?.parameters ?? [])];
  const out: Record<string, unknown> = {};
  for (const raw of params) {
    const p = "$ref" in raw ? doc.components.parameters[raw.$ref.slice(raw.$ref.lastIndexOf("/") + 1)] : raw;
    if (p?.in === "query" && p.schema && "default" in p.schema) out[p.name] = p.schema.default;
  }
  return out;
}
