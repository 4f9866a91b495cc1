/**
 * `bun run conformance -- --base-url <url> --key <x-service-key> [--unscoped-key <key>] [--seed N]
 *  [--runs N] [--ws-runs N] [--junit file] [--no-stateful]`
 * Runs the suite against a running deployment; exit code 1 when a property fails.
 */
import { parseArgs } from "node:util";
import { junitXml, formatReport } from "./report.ts";
import { runSuite } from "./run.ts";

const usage = `usage: bun run conformance -- --base-url <url> --key <x-service-key> [options]

  --base-url <url>       deployment under test, e.g. http://127.0.0.1:8080
  --key <key>            API key with every scope (x-service-key)
  --unscoped-key <key>   optional key without scopes (adds the 403 cases)
  --seed <n>             fast-check seed (default: time-based; printed in the report)
  --runs <n>             HTTP cases in all (default 1000)
  --ws-runs <n>          WebSocket sessions in all (default runs / 5)
  --ws-concurrency <n>   sessions streamed at once (default 4)
  --junit <file>         also write a JUnit XML report
  --no-stateful          skip the lifecycle sequence and callbacks
Callbacks are checked only against a loopback target (the receiver listens on 127.0.0.1).`;

const { values } = parseArgs({
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
    help: { type: "boolean", short: "h" },
  },
  allowPositionals: false,
});

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
  log: (l) => console.error(`… ${l}`),
});
console.log(formatReport(report));
console.log(`\nstatuses per operation: ${JSON.stringify(report.statuses)}`);
console.log(`close codes: ${JSON.stringify(report.closeCodes)}`);
if (values.junit) await Bun.write(values.junit, junitXml(report));
process.exit(report.failures.length ? 1 : 0);
