/**
 * Regenerates `generated/` from the contracts in `contracts/`:
 *   - generated/openapi.json, generated/asyncapi.json   bundled, self-contained documents (served as is)
 *   - generated/json-schemas.json                        every component schema as one JSON Schema 2020-12 bundle
 *   - generated/openapi/                                 hey-api types, JSON schemas, fetch client and SDK
 *   - generated/asyncapi/                                Modelina TypeScript models of the WebSocket messages
 *   - generated/operations.ts, generated/validators.ts   operation table and Ajv validators
 *   - generated/docs/websocket/                          WebSocket reference (AsyncAPI generator, HTML template), unless --no-docs
 * Output is deterministic: running it twice leaves `git diff generated` empty.
 *
 * Flags: --no-docs skips docs/; --check generates into a temporary folder and exits 1
 * when the result differs from the committed generated/ (used by CI and test/contracts).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { bundleDocument, toStableJson } from "../contracts/tools/bundle.ts";
import { emitJsonSchemaBundle, emitOperations, emitValidators } from "../contracts/tools/emit.ts";

const root = path.resolve(import.meta.dir, "..");
const contracts = path.join(root, "contracts");
const committed = path.join(root, "generated");
const checkOnly = process.argv.includes("--check");
const withDocs = !process.argv.includes("--no-docs");
const out = checkOnly ? mkdtempSync(path.join(tmpdir(), "generated-")) : committed;

function write(relative: string, content: string): void {
  const file = path.join(out, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

function step(label: string): () => void {
  const started = performance.now();
  return () => console.log(`  ${label} (${Math.round(performance.now() - started)} ms)`);
}

async function main(): Promise<void> {
  console.log("generate: contracts/ → generated/");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });

  let done = step("bundled openapi.json, asyncapi.json, json-schemas.json");
  const openapi = bundleDocument(path.join(contracts, "openapi.yaml"));
  const asyncapi = bundleDocument(path.join(contracts, "asyncapi.yaml"));
  write("openapi.json", toStableJson(openapi));
  write("asyncapi.json", toStableJson(asyncapi));
  const jsonSchemas = emitJsonSchemaBundle(openapi, asyncapi);
  write("json-schemas.json", toStableJson(jsonSchemas));
  done();

  done = step("openapi/ (hey-api)");
  await generateHeyApi(path.join(out, "openapi.json"), path.join(out, "openapi"));
  done();

  done = step("operations.ts, validators.ts");
  write("operations.ts", emitOperations(openapi));
  write("validators.ts", emitValidators(jsonSchemas, exportedTypes(path.join(out, "openapi", "types.gen.ts"))));
  done();

  done = step("asyncapi/ (Modelina)");
  await generateModelina(asyncapi, path.join(out, "asyncapi"));
  done();

  if (withDocs) {
    done = step("docs/websocket/ (AsyncAPI generator)");
    await buildWebSocketReference(asyncapi, path.join(out, "docs", "websocket"));
    done();
  }
  normalizeLineEndings(out);
  if (checkOnly) {
    const differences = compareTrees(out, committed, withDocs ? [] : ["docs/"]);
    rmSync(out, { recursive: true, force: true });
    if (differences.length > 0) {
      console.error(`generated/ is not up to date with contracts/:\n${differences.map((d) => `  ${d}`).join("\n")}`);
      console.error("run `bun run generate` and commit the result");
      process.exit(1);
    }
    console.log("generated/ is up to date");
  }
}

/** Relative paths of every file under a folder, sorted. */
function listFiles(dir: string, prefix = ""): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = path.join(dir, entry);
    const rel = prefix === "" ? entry : `${prefix}/${entry}`;
    if (statSync(full).isDirectory()) files.push(...listFiles(full, rel));
    else files.push(rel);
  }
  return files;
}

/** Files missing, extra or different between two folders. */
function compareTrees(fresh: string, current: string, ignored: string[]): string[] {
  const kept = (f: string) => !ignored.some((prefix) => f.startsWith(prefix));
  const a = listFiles(fresh).filter(kept);
  const b = listFiles(current).filter(kept);
  const differences: string[] = [];
  for (const f of a) {
    if (!b.includes(f)) differences.push(`missing: generated/${f}`);
    else if (!readFileSync(path.join(fresh, f)).equals(readFileSync(path.join(current, f)))) differences.push(`differs: generated/${f}`);
  }
  for (const f of b) if (!a.includes(f)) differences.push(`stale: generated/${f}`);
  return differences;
}

/** Names of the types exported by a generated TypeScript file. */
function exportedTypes(file: string): Set<string> {
  const names = new Set<string>();
  for (const match of readFileSync(file, "utf8").matchAll(/^export type (\w+)/gm)) names.add(match[1]);
  return names;
}

/** Types, JSON schemas, fetch client and SDK functions with hey-api. */
async function generateHeyApi(input: string, output: string): Promise<void> {
  const { createClient } = await import("@hey-api/openapi-ts");
  await createClient({
    input,
    output: { path: output },
    logs: { level: "silent" },
    plugins: [
      "@hey-api/client-fetch",
      "@hey-api/typescript",
      { name: "@hey-api/schemas", type: "json" },
      "@hey-api/sdk",
    ],
  } as never);
  patchBodyInit(path.join(output, "client", "client.gen.ts"));
}

/**
 * The generated fetch client names the DOM type \`BodyInit\`, which is not global without the DOM
 * lib; declare it locally from \`RequestInit\` so the client type-checks under Bun's types too.
 */
function patchBodyInit(file: string): void {
  const text = readFileSync(file, "utf8");
  if (!/\bBodyInit\b/.test(text) || /type BodyInit\b/.test(text)) return;
  const lines = text.split("\n");
  let at = 0;
  while (at < lines.length && lines[at].startsWith("//")) at++;
  lines.splice(at, 0, 'type BodyInit = NonNullable<RequestInit["body"]>;');
  writeFileSync(file, lines.join("\n"));
}

/** TypeScript interfaces of every AsyncAPI message payload with Modelina. */
async function generateModelina(document: object, output: string): Promise<void> {
  const { Parser } = await import("@asyncapi/parser");
  const { TypeScriptFileGenerator } = await import("@asyncapi/modelina");
  const parser = new Parser();
  const { document: parsed, diagnostics } = await parser.parse(JSON.stringify(nameInlineSchemas(document)));
  const errors = diagnostics.filter((d) => d.severity === 0);
  if (!parsed || errors.length > 0) {
    throw new Error(`asyncapi.json is invalid:\n${errors.map((d) => `  ${d.path.join(".")}: ${d.message}`).join("\n")}`);
  }
  const generator = new TypeScriptFileGenerator({
    modelType: "interface",
    enumType: "union",
    mapType: "record",
    rawPropertyNames: true,
  });
  const models = await generator.generateToFiles(parsed, output, { exportType: "named" }, true);
  const names = models.map((m) => m.modelName).sort();
  const index = names.map((name) => `export * from "./${name}";`).join("\n");
  writeFileSync(path.join(output, "index.ts"), `// Generated by scripts/generate.ts from contracts/asyncapi.yaml. Do not edit.\n${index}\n`);
}

/**
 * Gives every inline object schema a stable name (`<Parent><Member>`, e.g. `TranscriptMessageData`)
 * so that Modelina emits readable model names instead of numbered anonymous ones.
 */
function nameInlineSchemas(document: object): object {
  const copy = structuredClone(document) as { components?: { schemas?: Record<string, unknown> } };
  const pascal = (s: string) => s.replace(/(^|_)([a-z0-9])/g, (_m, _u, c: string) => c.toUpperCase());
  const visit = (schema: unknown, name: string): void => {
    if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return;
    const node = schema as Record<string, unknown>;
    if ("$ref" in node) return;
    const named = node.type === "object" || "properties" in node || "enum" in node || "allOf" in node;
    if (named && node["x-parser-schema-id"] === undefined) node["x-parser-schema-id"] = name;
    const props = node.properties as Record<string, unknown> | undefined;
    for (const [member, child] of Object.entries(props ?? {})) visit(child, name + pascal(member));
    if (node.items) visit(node.items, `${name}Item`);
    for (const key of ["oneOf", "anyOf", "allOf"]) {
      const branches = node[key];
      if (!Array.isArray(branches)) continue;
      const objects = branches.filter((b) => typeof b === "object" && b !== null && (b as Record<string, unknown>).type === "object");
      branches.forEach((b, i) => visit(b, objects.length > 1 ? `${name}Variant${i + 1}` : name));
    }
  };
  const messages = (copy.components as { messages?: Record<string, { payload?: Record<string, unknown> }> } | undefined)?.messages ?? {};
  for (const [key, message] of Object.entries(messages)) {
    const payload = message.payload;
    if (payload && !("$ref" in payload) && payload["x-parser-schema-id"] === undefined) {
      payload["x-parser-schema-id"] = `${pascal(key.replace(/([A-Z])/g, "_$1").toLowerCase())}Payload`;
    }
  }
  for (const [name, schema] of Object.entries(copy.components?.schemas ?? {})) {
    if (typeof schema === "object" && schema !== null && !("x-parser-schema-id" in schema)) {
      (schema as Record<string, unknown>)["x-parser-schema-id"] = name;
    }
    visit(schema, name);
  }
  return copy;
}

/**
 * The WebSocket protocol as HTML: the AsyncAPI generator with its HTML template, both installed as
 * devDependencies (the template is given by path, so the generator installs nothing and works
 * offline). The page loads its script and styles from `css/` and `js/` next to it, served under
 * `/docs/websocket/`.
 */
async function buildWebSocketReference(document: object, output: string): Promise<void> {
  const { default: Generator } = await import("@asyncapi/generator");
  const template = path.join(root, "node_modules", "@asyncapi", "html-template");
  mkdirSync(output, { recursive: true });
  const generator = new Generator(template, output, { forceWrite: true, templateParams: { baseHref: "/docs/websocket/" } });
  // The template logs progress, and Babel a note about the size of the template's own script.
  const { log, error } = console;
  console.log = () => {};
  console.error = (...args: unknown[]) => {
    if (!String(args[0]).startsWith("[BABEL] Note")) error(...args);
  };
  try {
    await generator.generateFromString(toStableJson(document));
  } finally {
    Object.assign(console, { log, error });
  }
  // Links to the service's other pages, outside the template's app root (which it hydrates).
  const index = path.join(output, "index.html");
  const nav =
    '<nav style="position:fixed;top:10px;right:16px;z-index:50;font:14px system-ui,sans-serif;background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:6px 12px">' +
    '<a href="/docs" style="color:#2f6fde;margin-right:12px">HTTP API</a><b>WebSocket API</b>' +
    '<a href="/" style="color:#2f6fde;margin-left:12px">Playground</a></nav>';
  writeFileSync(index, readFileSync(index, "utf8").replace("<body>", `<body>\n${nav}`));
}

/** Every text file ends with LF line endings (some generators emit CRLF on some platforms). */
function normalizeLineEndings(dir: string): void {
  for (const entry of readdirSync(dir)) {
    const file = path.join(dir, entry);
    if (statSync(file).isDirectory()) {
      normalizeLineEndings(file);
    } else if (/\.(ts|json|html)$/.test(entry)) {
      const text = readFileSync(file, "utf8");
      if (text.includes("\r\n")) writeFileSync(file, text.replaceAll("\r\n", "\n"));
    }
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
