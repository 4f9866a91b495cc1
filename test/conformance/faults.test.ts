/**
 * Planted faults: a mutating proxy sits between the suite and a healthy service. Transparent, the
 * suite passes; with each fault (undocumented status, unknown body member, corrupted WebSocket
 * message) the suite must fail with the matching check.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildContract, localDocuments, type Contract } from "../../conformance/contract.ts";
import type { Report } from "../../conformance/report.ts";
import { runSuite } from "../../conformance/run.ts";
import { startTestService, type TestService } from "../helpers/server.ts";
import { startProxy, type Fault } from "./proxy.ts";

let svc: TestService;
let key: string;
let contract: Contract;
const init = { model: "trantoria-1", language_config: { languages: ["en"] } };

beforeAll(async () => {
  svc = await startTestService();
  key = (await svc.account({ plan: { maxConcurrentSessions: 100_000 } })).key;
  contract = buildContract(await localDocuments());
});
afterAll(() => svc.stop());

async function through(fault: Fault, runs: { http: number; ws: number }): Promise<{ report: Report; mutated: number }> {
  const proxy = startProxy(svc.running.url, fault);
  try {
    const report = await runSuite({ target: { baseUrl: proxy.url, key }, contract, seed: 7, httpRuns: runs.http, wsRuns: runs.ws, stateful: false, sessionInit: init });
    return { report, mutated: proxy.mutated };
  } finally {
    proxy.stop();
  }
}

const checks = (r: Report) => new Set(r.failures.flatMap((f) => f.violations.map((v) => v.check)));

describe("planted faults make the suite fail", () => {
  test("a transparent proxy passes", async () => {
    const { report } = await through("none", { http: 120, ws: 6 });
    expect(report.failures).toEqual([]);
  });

  test("an undocumented status fails status_code_conformance, with a shrunk counterexample", async () => {
    const { report, mutated } = await through("undocumented_status", { http: 120, ws: 0 });
    expect(mutated).toBeGreaterThan(0);
    expect(checks(report).has("status_code_conformance")).toBe(true);
    const f = report.failures.find((x) => x.violations.some((v) => v.check === "status_code_conformance"))!;
    expect(f.counterexample).toContain("→ 410");
    expect(f.counterexample).not.toContain(key);
    expect(typeof f.seed).toBe("number");
  });

  test("an unknown member in response bodies fails response_schema_conformance", async () => {
    const { report, mutated } = await through("unknown_member", { http: 120, ws: 0 });
    expect(mutated).toBeGreaterThan(0);
    expect(checks(report).has("response_schema_conformance")).toBe(true);
  });

  test("a service accepting and ignoring options the contract marks x-refused fails refused_option_rejection", async () => {
    const { report, mutated } = await through("ignore_refused_options", { http: 120, ws: 0 });
    expect(mutated).toBeGreaterThan(0);
    expect(checks(report).has("refused_option_rejection")).toBe(true);
    const f = report.failures.find((x) => x.violations.some((v) => v.check === "refused_option_rejection"))!;
    expect(f.counterexample).toMatch(/"realtime_processing"/);
  });

  test("a service refusing options the contract accepts and ignores (x-ignored) fails ignored_option_acceptance", async () => {
    const { report, mutated } = await through("refuse_ignored_options", { http: 120, ws: 0 });
    expect(mutated).toBeGreaterThan(0);
    expect(checks(report).has("ignored_option_acceptance")).toBe(true);
    const f = report.failures.find((x) => x.violations.some((v) => v.check === "ignored_option_acceptance"))!;
    expect(f.counterexample).toContain('"summarization":true');
  });

  test("a corrupted WebSocket message fails ws_message_schema", async () => {
    const { report, mutated } = await through("corrupt_ws_message", { http: 28, ws: 6 });
    expect(mutated).toBeGreaterThan(0);
    expect(checks(report).has("ws_message_schema")).toBe(true);
    expect(report.failures.every((f) => f.area === "ws")).toBe(true);
  });
});
