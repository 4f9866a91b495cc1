/**
 * `live-stt-conformance --base-url <url> --key <x-service-key> [options]` (the packaged bin), or
 * `bun run conformance -- …` in the repository. Runs the suite against a running deployment; exit
 * code 1 when a property fails, 2 on bad arguments.
 */
import { parseArgs } from "node:util";
import { junitXml, formatReport } from "./report.ts";
import { runSuite } from "./run.ts";

const usage = `usage: live-stt-conformance --base-url <url> --key <x-service-key> [options]
       (in the repository: bun run conformance -- --base-url <url> --key <key> [options])

  --base-url <url>       deployment under test, e.g. http://127.0.0.1:8080
  --key <key>            API key with every scope (x-service-key)
  --unscoped-key <key>   optional key without scopes (adds the 403 cases)
  --seed <n>             fast-check seed (default: time-based; printed in the report)
  --runs <n>             HTTP cases in all (default 1000)
  --ws-runs <n>          WebSocket sessions in all (default runs / 5)
  --ws-concurrency <n>   sessions streamed at once (default 4)
  --junit <file>         also write a JUnit XML report
  --no-stateful          skip the lifecycle sequence and callbacks
  --require-callbacks    fail (instead of skipping with a notice) when no callback arrives
  -h, --help             this text
Callbacks are checked only against a loopback target (the receiver listens on 127.0.0.1), and only
when the deployment allows loopback callback targets (CALLBACKS_ALLOW_LOOPBACK=true); otherwise
they are skipped with a notice. Exit code: 0 passed, 1 a property failed, 2 bad arguments.`;

let parsed: ReturnType<typeof parse>;
try {
  parsed = parse();
} catch (e) {
  console.error(`${(e as Error).message}\n\n${usage}`);
  process.exit(2);
}
const values = parsed.values;

function parse() {
  return parseArgs({
  options: {
    "base-url": { type: "string" },
    key: { type: "string" },
    "unscoped-key": { type: "string" },
    seed: { type: "string" },
    runs: { type: "string" },
    "ws-runs": { type: "string" },
    "ws-concurrency": { type: "string" },
    junit: { type: "string" },
    "no-stateful": { type: "boolean" },
    "require-callbacks": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  },
  allowPositionals: false,
  });
}

if (values.help || !values["base-url"] || !values.key) {
  console.log(usage);
  process.exit(values.help ? 0 : 2);
}

const int = (s: string | undefined, name: string): number | undefined => {
  if (s === undefined) return undefined;
  const n = Number(s);
  if (!Number.isInteger(n)) {
    console.error(`--${name} must be an integer`);
    process.exit(2);
  }
  return n;
};

const runs = int(values.runs, "runs") ?? 1000;
const report = await runSuite({
  target: { baseUrl: values["base-url"], key: values.key, unscopedKey: values["unscoped-key"] },
  seed: int(values.seed, "seed"),
  httpRuns: runs,
  wsRuns: int(values["ws-runs"], "ws-runs") ?? Math.max(1, Math.round(runs / 5)),
  wsConcurrency: int(values["ws-concurrency"], "ws-concurrency"),
  stateful: !values["no-stateful"],
  requireCallbacks: values["require-callbacks"],
  log: (l) => console.error(`… ${l}`),
});
console.log(formatReport(report));
console.log(`\nstatuses per operation: ${JSON.stringify(report.statuses)}`);
console.log(`close codes: ${JSON.stringify(report.closeCodes)}`);
if (values.junit) await Bun.write(values.junit, junitXml(report));
process.exit(report.failures.length ? 1 : 0);
