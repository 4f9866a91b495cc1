/**
 * Regenerates `generated/` from the contracts in `contracts/`:
 *   - generated/openapi.json, generated/asyncapi.json   bundled, self-contained documents (served as is)
 *   - generated/json-schemas.json                        every component schema as one JSON Schema 2020-12 bundle
 *   - generated/openapi/                                 hey-api types (HTTP bodies, WebSocket messages, callback
 *                                                        bodies: every component schema), JSON schemas, fetch client and SDK
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
  write("operations.ts", emitOperations(openapi, exportedTypes(path.join(out, "openapi", "types.gen.ts"))));
  write("validators.ts", emitValidators(jsonSchemas, exportedTypes(path.join(out, "openapi", "types.gen.ts"))));
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
  // The template's UI bundle (2.4 MB) is a verbatim copy of a file of the npm package: the service
  // serves it from there rather than keeping a second copy in generated/.
  rmSync(path.join(output, "js", "asyncapi-ui.min.js"), { force: true });
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
