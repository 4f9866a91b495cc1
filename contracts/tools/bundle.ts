/**
 * Bundles a contract document (OpenAPI or AsyncAPI, YAML) and the shared schema files it
 * references into one self-contained JSON document.
 *
 * Shared schema files (`contracts/schemas/*.yaml`) are maps of schema name → schema. A reference
 * `./schemas/file.yaml#/Name` (or `#/Name` inside such a file) becomes
 * `#/components/schemas/Name`, and the schema itself is placed under `components.schemas`.
 * Names must be unique across files. Output key order follows the sources, with
 * `components.schemas` sorted by name, so bundling is deterministic.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { titleInlineSchemas } from "./names.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const COMPONENT_PREFIX = "#/components/schemas/";

/** Reads and parses a YAML file (YAML 1.2 core schema: `no` stays a string). */
export function readYaml(file: string): Json {
  return parse(readFileSync(file, "utf8")) as Json;
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** State of one bundling run: the shared schemas collected so far and where each came from. */
class Collector {
  readonly schemas = new Map<string, Json>();
  private readonly origin = new Map<string, string>();
  private readonly files = new Map<string, JsonObject>();

  constructor(private readonly entryFile: string) {}

  /** Rewrites a reference found in `fromFile` and returns its bundled form. */
  rewrite(ref: string, fromFile: string): string {
    const hash = ref.indexOf("#");
    const filePart = hash === -1 ? ref : ref.slice(0, hash);
    const pointer = hash === -1 ? "" : ref.slice(hash + 1);
    const targetFile = filePart === "" ? fromFile : path.resolve(path.dirname(fromFile), filePart);
    if (targetFile === this.entryFile) {
      if (filePart !== "") throw new Error(`${fromFile}: reference back into the entry document: ${ref}`);
      return ref;
    }
    const segments = pointer.split("/").filter((s) => s !== "");
    if (segments.length !== 1) {
      throw new Error(`${fromFile}: shared-schema references must name one top-level schema: ${ref}`);
    }
    const name = decodeURIComponent(segments[0]);
    this.collect(name, targetFile);
    return COMPONENT_PREFIX + name;
  }

  private collect(name: string, file: string): void {
    const seen = this.origin.get(name);
    if (seen !== undefined) {
      if (seen !== file) throw new Error(`schema name ${name} is defined in both ${seen} and ${file}`);
      return;
    }
    this.origin.set(name, file);
    const doc = this.load(file);
    const schema = doc[name];
    if (schema === undefined) throw new Error(`${file}: no schema named ${name}`);
    this.schemas.set(name, walk(structuredClone(schema), file, this));
  }

  private load(file: string): JsonObject {
    let doc = this.files.get(file);
    if (!doc) {
      const parsed = readYaml(file);
      if (!isObject(parsed)) throw new Error(`${file}: expected a map of schemas`);
      doc = parsed;
      this.files.set(file, doc);
    }
    return doc;
  }
}

/** Walks a node, rewriting `$ref`s and discriminator mappings; returns the rewritten node. */
function walk(node: Json, file: string, collector: Collector): Json {
  if (Array.isArray(node)) return node.map((item) => walk(item, file, collector));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string") {
      out[key] = collector.rewrite(value, file);
    } else if (key === "discriminator" && isObject(value) && isObject(value.mapping)) {
      const mapping: JsonObject = {};
      for (const [tag, target] of Object.entries(value.mapping)) {
        mapping[tag] = typeof target === "string" ? collector.rewrite(target, file) : target;
      }
      out[key] = { ...value, mapping };
    } else {
      out[key] = walk(value, file, collector);
    }
  }
  return out;
}

/** AsyncAPI schemas name the discriminator property as a plain string. */
function asyncapiDiscriminators(node: Json): Json {
  if (Array.isArray(node)) return node.map(asyncapiDiscriminators);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === "discriminator" && isObject(value) ? (value.propertyName as Json) : asyncapiDiscriminators(value);
  }
  return out;
}

/**
 * Bundles `entryFile` into one self-contained document. For an AsyncAPI document, discriminators
 * of shared schemas are written in the AsyncAPI form (the property name only).
 */
export function bundleDocument(entryFile: string): JsonObject {
  const entry = path.resolve(entryFile);
  const source = readYaml(entry);
  if (!isObject(source)) throw new Error(`${entry}: not a document`);
  const collector = new Collector(entry);
  const doc = walk(source, entry, collector) as JsonObject;

  const components: JsonObject = isObject(doc.components) ? doc.components : {};
  const declared: JsonObject = isObject(components.schemas) ? components.schemas : {};
  const merged: JsonObject = {};
  for (const [name, schema] of Object.entries(declared)) {
    const selfAlias = isObject(schema) && schema.$ref === COMPONENT_PREFIX + name && Object.keys(schema).length === 1;
    if (!selfAlias) merged[name] = schema;
  }
  const isAsyncapi = typeof doc.asyncapi === "string";
  for (const [name, found] of collector.schemas) {
    const schema = isAsyncapi ? asyncapiDiscriminators(found) : found;
    if (name in merged) throw new Error(`${entry}: components.schemas.${name} clashes with a shared schema`);
    merged[name] = schema;
  }
  const sorted: JsonObject = {};
  for (const name of Object.keys(merged).sort()) sorted[name] = merged[name];
  doc.components = { ...components, schemas: sorted };
  titleInlineSchemas(doc);
  return doc;
}

/** Serializes a document the same way every time (2-space indent, trailing newline). */
export function toStableJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
