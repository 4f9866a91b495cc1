/**
 * Lints the contracts: Redocly CLI (`contracts/redocly.yaml` rules) over contracts/openapi.yaml
 * and the AsyncAPI parser over contracts/asyncapi.yaml and the bundled generated/asyncapi.json.
 * Exits non-zero on any error.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Parser } from "@asyncapi/parser";

const root = path.resolve(import.meta.dir, "..");

/** Runs Redocly lint; returns true when the document has no error. */
async function lintOpenapi(file: string): Promise<boolean> {
  const bin = path.join(root, "node_modules", ".bin", "redocly");
  const proc = Bun.spawn([bin, "lint", file, "--config", path.join(root, "contracts", "redocly.yaml"), "--format", "stylish"], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const report = `${out}\n${err}`
    .split("\n")
    .filter((line) => !/[║╔╚]/.test(line))
    .join("\n")
    .trim();
  console.log(report);
  return code === 0;
}

/** Validates an AsyncAPI document; returns true when it has no error-level diagnostic. */
async function lintAsyncapi(file: string): Promise<boolean> {
  const parser = new Parser();
  const { document, diagnostics } = await parser.parse(readFileSync(file, "utf8"), { source: file });
  let ok = document !== undefined;
  for (const d of diagnostics) {
    const level = ["error", "warning", "info", "hint"][d.severity] ?? "info";
    if (d.severity === 0) ok = false;
    if (d.severity <= 1) console.log(`${path.relative(root, file)} ${level} ${d.code} ${d.path.join(".")}: ${d.message}`);
  }
  console.log(`${path.relative(root, file)}: ${ok ? "valid AsyncAPI" : "INVALID"}`);
  return ok;
}

const results = [
  await lintOpenapi("contracts/openapi.yaml"),
  await lintAsyncapi(path.join(root, "contracts", "asyncapi.yaml")),
];
const bundled = path.join(root, "generated", "asyncapi.json");
if (existsSync(bundled)) results.push(await lintAsyncapi(bundled));
if (results.includes(false)) {
  console.error("lint:contracts failed");
  process.exit(1);
}
console.log("lint:contracts: no errors");
