/** Runs the whole suite (HTTP, stateful sequence, WebSocket, callbacks) against a target and returns the report. */
import { buildContract, localDocuments, remoteDocuments, type Contract } from "./contract.ts";
import { caseFamilies, checkExchange, describeCase, execute, type HttpState, type Target } from "./http.ts";
import type { KnownIssue } from "./known-issues.ts";
import { runProperty } from "./property.ts";
import { emptyReport, type Report } from "./report.ts";
import { runStateful } from "./stateful.ts";
import { runWebSocket } from "./ws.ts";

export interface SuiteOptions {
  target: Target;
  /** The contract; fetched from the target's `/openapi.json` and `/asyncapi.json` when absent. */
  contract?: Contract;
  seed?: number;
  /** HTTP cases in all (spread over every case family of every operation). */
  httpRuns?: number;
  /** WebSocket sessions in all (spread over the sequence families). */
  wsRuns?: number;
  /** Run the stateful lifecycle and callback checks (default true). */
  stateful?: boolean;
  /** Sessions streamed at once in the WebSocket part (default 4). */
  wsConcurrency?: number;
  /** Model and languages a session can be opened with (default: the first model the capabilities list). */
  sessionInit?: Record<string, unknown>;
  issues?: KnownIssue[];
  /** Fail when callbacks cannot be checked on a loopback target (default: skip them with a notice). */
  requireCallbacks?: boolean;
  log?: (line: string) => void;
}

/** The contract of a target (its served documents), or the local `generated/` ones when it serves none. */
export async function contractOf(target: Target): Promise<Contract> {
  try {
    return buildContract(await remoteDocuments(target.baseUrl));
  } catch {
    return buildContract(await localDocuments());
  }
}

/** Picks an init body the deployment can serve, from `GET /v2/live/capabilities`. */
export async function servableInit(target: Target): Promise<Record<string, unknown>> {
  try {
    const res = await fetch(new URL("/v2/live/capabilities", target.baseUrl), { headers: { "x-service-key": target.key } });
    const caps = (await res.json()) as { models?: { model: string; languages?: string[] }[] };
    const m = caps.models?.find((x) => (x.languages?.length ?? 0) > 0) ?? caps.models?.[0];
    if (m) return { model: m.model, language_config: { languages: m.languages?.includes("en") ? ["en"] : (m.languages ?? []).slice(0, 1) } };
  } catch {}
  return { model: "trantoria-1", language_config: { languages: ["en"] } };
}

/** Runs every part of the suite. */
export async function runSuite(opts: SuiteOptions): Promise<Report> {
  const started = Date.now();
  const seed = opts.seed ?? Date.now() % 2 ** 31;
  const report = emptyReport(seed);
  const log = opts.log ?? (() => {});
  const contract = opts.contract ?? (await contractOf(opts.target));
  const state: HttpState = { knownIds: [], observedQuery: {} };
  const init = opts.sessionInit ?? (await servableInit(opts.target));

  // Stateful first: it leaves sessions in every state for the path-parameter cases.
  if (opts.stateful !== false) {
    log("stateful lifecycle and callbacks");
    await runStateful({ contract, target: opts.target, report, init, state, seed, issues: opts.issues, requireCallbacks: opts.requireCallbacks });
  }

  const httpRuns = opts.httpRuns ?? 500;
  const families = contract.operations.flatMap((op) => caseFamilies(contract, op, state, opts.target, init).map((f) => ({ op, f })));
  const per = Math.max(1, Math.floor(httpRuns / families.length));
  log(`http: ${families.length} case families × ${per} cases`);
  for (const { op, f } of families) {
    await runProperty(report, "http", f.name, f.arbitrary, per, seed, async (c) => {
      const observed = await execute(opts.target, op, c);
      const counts = (report.statuses[op.operationId] ??= {});
      counts[observed.status] = (counts[observed.status] ?? 0) + 1;
      const verdict = checkExchange(contract, op, c, observed);
      for (const r of verdict.rules) report.crossFieldRules[r] = (report.crossFieldRules[r] ?? 0) + 1;
      collectIds(observed.text, state);
      return { violations: verdict.violations, describe: `${describeCase(op, c)}\n→ ${observed.status} ${observed.text.slice(0, 300)}` };
    }, opts.issues);
  }

  const wsRuns = opts.wsRuns ?? 0;
  if (wsRuns > 0) {
    log(`websocket: ${wsRuns} sessions`);
    await runWebSocket({ contract, target: opts.target, report, init, seed, runs: wsRuns, concurrency: opts.wsConcurrency ?? 4, issues: opts.issues });
  }
  report.durationMs = Date.now() - started;
  return report;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Remembers session ids seen in bodies (created or listed), bounded. */
function collectIds(text: string, state: HttpState): void {
  if (!text.startsWith("{")) return;
  try {
    const body = JSON.parse(text) as { id?: unknown; items?: { id?: unknown }[]; next?: unknown };
    if (typeof body.next === "string") {
      for (const [k, v] of new URL(body.next, "http://x").searchParams) {
        const seen = (state.observedQuery[k] ??= []);
        if (!seen.includes(v)) seen.push(v);
        if (seen.length > 50) seen.shift();
      }
    }
    const ids = [body.id, ...(Array.isArray(body.items) ? body.items.map((i) => i?.id) : [])];
    for (const id of ids) if (typeof id === "string" && UUID.test(id) && !state.knownIds.includes(id)) state.knownIds.push(id);
    if (state.knownIds.length > 200) state.knownIds.splice(0, state.knownIds.length - 200);
  } catch {}
}
