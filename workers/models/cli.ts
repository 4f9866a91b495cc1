/**
 * `bun run models -- list` and `bun run models -- pull <name> [--base-url URL] [--allow-unpinned]`.
 * MODELS_DIR selects the models directory (default ./models); MODELS_HUB_URL sets a mirror.
 */
import { SingleBar, Presets } from "cli-progress";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { formatList, listEntries } from "./list.ts";
import { PullError, pullEntry, resolvePullName } from "./pull.ts";

const USAGE = `usage:
  models list
  models pull <entry-id | public-model> [--base-url URL] [--allow-unpinned]
environment: MODELS_DIR (default ./models), MODELS_HUB_URL (mirror base URL)`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { "base-url": { type: "string" }, "allow-unpinned": { type: "boolean" }, help: { type: "boolean" } },
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
    const entries = resolvePullName(name);
    let bar: SingleBar | undefined;
    for (const entry of entries) {
      console.log(`pulling ${entry.id} into ${modelsDir}`);
      const outcome = await pullEntry(entry, {
        modelsDir,
        baseUrl: values["base-url"] ?? process.env.MODELS_HUB_URL,
        allowUnpinned: values["allow-unpinned"] ?? false,
        onFileStart: (file, total, from) => {
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
      for (const [file, what] of Object.entries(outcome)) console.log(`  ${file}: ${what}`);
    }
    return 0;
  }
  console.error(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof PullError || err instanceof TypeError ? `error: ${err.message}` : err);
    process.exit(1);
  },
);
