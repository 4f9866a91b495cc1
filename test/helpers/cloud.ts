/**
 * The hosted cloud variant's published schemas, read at test time from ../shared/reference/cloud
 * (never copied into the repository), as validators: `(schemaName, value) => error lines`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { parse } from "yaml";

const cloudDir = path.resolve(import.meta.dir, "../../../shared/reference/cloud");

// biome-ignore lint/suspicious/noExplicitAny: third-party documents are rewritten dynamically.
type Any = any;

/** Rewrites an OpenAPI 3.0 / AsyncAPI schema set into draft-07 definitions Ajv can compile. */
function toDraft07(node: Any, from: string): Any {
  if (Array.isArray(node)) return node.map((n) => toDraft07(n, from));
  if (node === null || typeof node !== "object") return node;
  const out: Any = {};
  for (const [key, value] of Object.entries<Any>(node)) {
    if (key === "$ref" && typeof value === "string") out.$ref = value.replace(from, "#/definitions/");
    else if (key !== "nullable" && key !== "example" && key !== "examples" && key !== "discriminator") out[key] = toDraft07(value, from);
  }
  return node.nullable === true ? { anyOf: [out, { type: "null" }] } : out;
}

function cloudValidator(definitions: Any) {
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema({ $id: "cloud", definitions });
  return (name: string, value: unknown): string[] => {
    const validate = ajv.getSchema(`cloud#/definitions/${name}`);
    if (!validate) throw new Error(`cloud schema ${name} not found`);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

export const cloudOpenapi = JSON.parse(readFileSync(path.join(cloudDir, "openapi.json"), "utf8"));
export const cloudAsyncapi = parse(readFileSync(path.join(cloudDir, "asyncapi.yaml"), "utf8"));
export const againstCloudOpenapi = cloudValidator(toDraft07(cloudOpenapi.components.schemas, "#/components/schemas/"));
export const againstCloudAsyncapi = cloudValidator(toDraft07(cloudAsyncapi.components.schemas, "#/components/schemas/"));

