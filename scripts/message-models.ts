/**
 * WebSocket message models in other languages, generated with Modelina from the AsyncAPI document
 * a deployment serves (or generated/asyncapi.json):
 *   bun scripts/message-models.ts --lang go|python|java --out <dir> [--from <url or file>]
 * Go: package `messages` (one file per model); Java: package `messages`; Python: one module per
 * model. Models are named by the contract's titles (see contracts/tools/names.ts). CI compiles the
 * output (`go build`, `javac`, `py_compile`).
 */
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { Parser } from "@asyncapi/parser";
import { GoFileGenerator, JavaFileGenerator, PythonFileGenerator } from "@asyncapi/modelina";

const { values } = parseArgs({ options: { lang: { type: "string" }, out: { type: "string" }, from: { type: "string" } } });
const lang = values.lang;
if (!values.out || (lang !== "go" && lang !== "python" && lang !== "java")) {
  console.error("usage: bun scripts/message-models.ts --lang go|python|java --out <dir> [--from <url or file>]");
  process.exit(2);
}
const from = values.from ?? path.resolve(import.meta.dir, "../generated/asyncapi.json");
const text = /^https?:/.test(from) ? await (await fetch(from)).text() : await Bun.file(from).text();
const { document, diagnostics } = await new Parser().parse(text);
if (!document) throw new Error(`the AsyncAPI document is invalid: ${diagnostics.filter((d) => d.severity === 0).map((d) => d.message).join("; ")}`);

const out = path.resolve(values.out);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const models =
  lang === "go"
    ? await new GoFileGenerator().generateToFiles(document, out, { packageName: "messages" }, true)
    : lang === "java"
      ? await new JavaFileGenerator().generateToFiles(document, out, { packageName: "messages" }, true)
      : await new PythonFileGenerator().generateToFiles(document, out, {} as never, true);
console.log(`${models.length} ${lang} models in ${path.relative(process.cwd(), out) || "."}: ${models.map((m) => m.modelName).sort().join(", ")}`);
