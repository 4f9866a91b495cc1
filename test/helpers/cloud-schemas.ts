/**
 * Validation against the cloud variant's published message schemas (read at test time from
 * ../shared/reference/cloud, never copied): `againstCloud("TranslationMessage", message)` returns the
 * problems found, [] when the message validates.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { parse } from "yaml";

// biome-ignore lint/suspicious/noExplicitAny: third-party documents are rewritten dynamically.
type Any = any;

const cloudDir = path.resolve(import.meta.dir, "../../../shared/reference/cloud");

/** Rewrites AsyncAPI component schemas into draft-07 definitions Ajv can compile. */
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

let ajv: Ajv | null = null;

export function againstCloud(schema: string, value: unknown): string[] {
  if (!ajv) {
    const doc = parse(readFileSync(path.join(cloudDir, "asyncapi.yaml"), "utf8"));
    ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema({ $id: "cloud", definitions: toDraft07(doc.components.schemas, "#/components/schemas/") });
  }
  const validate = ajv.getSchema(`cloud#/definitions/${schema}`);
  if (!validate) throw new Error(`cloud schema ${schema} not found`);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
