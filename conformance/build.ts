/**
 * Builds the packaged suite (`conformance/dist/`): the CLI bundled with its dependencies into one
 * file for Bun (`#!/usr/bin/env bun`), plus the contract documents it falls back to when a
 * deployment serves none. Run by `npm pack` (prepack) in `conformance/`; the tarball then has no
 * dependencies to install and runs with `bunx`/`npx` on any machine with Bun.
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const here = import.meta.dir;
const dist = path.join(here, "dist");
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
const result = await Bun.build({ entrypoints: [path.join(here, "cli.ts")], outdir: dist, target: "bun", naming: "cli.js" });
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
const cli = path.join(dist, "cli.js");
const code = readFileSync(cli, "utf8").replace(/^#!.*\n/, "");
writeFileSync(cli, `#!/usr/bin/env bun\n${code}`);
chmodSync(cli, 0o755);
for (const doc of ["openapi.json", "asyncapi.json"]) copyFileSync(path.join(here, "../generated", doc), path.join(dist, doc));
console.log(`built ${path.relative(process.cwd(), cli)} (${Math.round(Bun.file(cli).size / 1024)} KiB)`);
