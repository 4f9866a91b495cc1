/** Results of a conformance run: violations, failing properties with their shrunk counterexample, tallies, JUnit. */

/** Check names; the HTTP ones follow schemathesis's vocabulary where one exists. */
export type CheckName =
  | "not_a_server_error"
  | "status_code_conformance"
  | "content_type_conformance"
  | "response_schema_conformance"
  | "response_headers_conformance"
  | "negative_data_rejection"
  | "positive_data_acceptance"
  | "refused_option_rejection"
  | "ignored_option_acceptance"
  | "validation_errors_name_field"
  | "ignored_auth"
  | "use_after_free"
  | "ensure_resource_availability"
  | "ws_message_schema"
  | "ws_message_order"
  | "ws_ack_ranges"
  | "ws_close_code"
  | "ws_error_reported"
  | "ws_isolation"
  | "callback_envelope_schema"
  | "callback_delivery";

export interface Violation {
  check: CheckName;
  message: string;
}

/** A request as printed in a counterexample (the API key is never printed). */
export interface RequestDescription {
  method: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body?: string;
}

export interface Failure {
  area: "http" | "ws" | "callback" | "stateful";
  property: string;
  seed: number;
  /** fast-check's path to the counterexample (replay with seed + path). */
  replayPath?: string;
  /** Minimal (shrunk) input, human-readable. */
  counterexample: string;
  violations: Violation[];
}

export interface KnownHit {
  issue: string;
  count: number;
  example: string;
}

export interface AreaTally {
  cases: number;
  failures: number;
}

export interface Report {
  seed: number;
  startedAt: string;
  durationMs: number;
  areas: Record<"http" | "ws" | "callback" | "stateful", AreaTally>;
  /** Case count and duration per property. */
  properties: { area: string; name: string; cases: number; ok: boolean; durationMs: number }[];
  /** Parts of the suite that did not run, and why (printed, and JUnit `skipped` cases). */
  skipped: { area: string; name: string; reason: string }[];
  failures: Failure[];
  known: KnownHit[];
  /** Cross-field rules met on schema-valid bodies (400s that are not failures), with their count. */
  crossFieldRules: Record<string, number>;
  /** Status counts of HTTP responses, per operation. */
  statuses: Record<string, Record<number, number>>;
  /** WebSocket close codes seen, with their count. */
  closeCodes: Record<number, number>;
}

export function emptyReport(seed: number): Report {
  return {
    seed,
    startedAt: new Date().toISOString(),
    durationMs: 0,
    areas: { http: { cases: 0, failures: 0 }, ws: { cases: 0, failures: 0 }, callback: { cases: 0, failures: 0 }, stateful: { cases: 0, failures: 0 } },
    properties: [],
    skipped: [],
    failures: [],
    known: [],
    crossFieldRules: {},
    statuses: {},
    closeCodes: {},
  };
}

/** Prints a request without its API key, as a curl-like block. */
export function describeRequest(r: RequestDescription): string {
  const qs = r.query.length ? `?${new URLSearchParams(r.query).toString()}` : "";
  const headers = Object.entries(r.headers)
    .map(([k, v]) => `  ${k}: ${v}`)
    .join("\n");
  return `${r.method} ${r.path}${qs}${headers ? `\n${headers}` : ""}${r.body !== undefined ? `\n\n  ${r.body.length > 2000 ? `${r.body.slice(0, 2000)}…` : r.body}` : ""}`;
}

/** Records a hit of a known (allow-listed) issue. */
export function noteKnown(report: Report, issue: string, example: string): void {
  const hit = report.known.find((k) => k.issue === issue);
  if (hit) hit.count++;
  else report.known.push({ issue, count: 1, example });
}

/** Human-readable summary; failures with seed and minimal input. */
export function formatReport(r: Report): string {
  const lines: string[] = [];
  const total = Object.values(r.areas).reduce((s, a) => s + a.cases, 0);
  lines.push(`conformance: ${total} cases, ${r.failures.length} failing properties, seed ${r.seed}, ${(r.durationMs / 1000).toFixed(1)} s`);
  for (const [area, t] of Object.entries(r.areas)) lines.push(`  ${area.padEnd(9)} ${String(t.cases).padStart(6)} cases  ${t.failures} failing`);
  if (Object.keys(r.crossFieldRules).length) {
    lines.push("  cross-field rules met by schema-valid bodies (400, not expressible in the schema):");
    for (const [rule, n] of Object.entries(r.crossFieldRules)) lines.push(`    ${n}× ${rule}`);
  }
  for (const s of r.skipped) lines.push(`  NOTICE: ${s.area} "${s.name}" skipped: ${s.reason}`);
  if (r.known.length) {
    lines.push("  known issues (allow-listed):");
    for (const k of r.known) lines.push(`    ${k.count}× ${k.issue}`);
  }
  for (const f of r.failures) {
    lines.push("", `FAIL [${f.area}] ${f.property}  (seed ${f.seed}${f.replayPath ? `, path ${f.replayPath}` : ""})`);
    for (const v of f.violations) lines.push(`  ✗ ${v.check}: ${v.message}`);
    lines.push("  minimal input:", ...f.counterexample.split("\n").map((l) => `    ${l}`));
  }
  return lines.join("\n");
}

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);

/**
 * JUnit XML: one test suite per area, one test case per property with its duration; names are the
 * property names (stable across runs, seeds and case counts), skipped parts are `skipped` cases.
 */
export function junitXml(r: Report): string {
  const areas = [...new Set([...r.properties.map((p) => p.area), ...r.skipped.map((s) => s.area)])];
  const suites = areas.map((area) => {
    const props = r.properties.filter((p) => p.area === area);
    const skipped = r.skipped.filter((s) => s.area === area);
    const failures = props.filter((p) => !p.ok).length;
    const time = props.reduce((t, p) => t + p.durationMs, 0) / 1000;
    const cases = props.map((p) => {
      const failure = r.failures.find((f) => f.area === p.area && f.property === p.name);
      const body = failure
        ? `<failure message="${xml(failure.violations.map((v) => v.check).join(", "))}">${xml(`seed ${failure.seed}${failure.replayPath ? `, path ${failure.replayPath}` : ""}\n${failure.violations.map((v) => `${v.check}: ${v.message}`).join("\n")}\n${failure.counterexample}`)}</failure>`
        : "";
      return `    <testcase classname="conformance.${xml(area)}" name="${xml(p.name)}" time="${(p.durationMs / 1000).toFixed(3)}"><system-out>${p.cases} cases, seed ${r.seed}</system-out>${body}</testcase>`;
    });
    for (const s of skipped) cases.push(`    <testcase classname="conformance.${xml(area)}" name="${xml(s.name)}" time="0.000"><skipped message="${xml(s.reason)}"/></testcase>`);
    return `  <testsuite name="conformance.${xml(area)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped.length}" time="${time.toFixed(3)}" timestamp="${xml(r.startedAt.replace(/\.\d+Z$/, ""))}">\n${cases.join("\n")}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="conformance" tests="${r.properties.length + r.skipped.length}" failures="${r.failures.length}" time="${(r.durationMs / 1000).toFixed(3)}">\n${suites.join("\n")}\n</testsuites>\n`;
}
