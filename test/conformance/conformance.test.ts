/**
 * The conformance suite against a real service: every operation and message of the contracts,
 * generated from them with a fixed seed. Known service bugs are allow-listed in
 * conformance/known-issues.ts (counted in the report) so that this run stays green while they show.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildContract, localDocuments } from "../../conformance/contract.ts";
import { formatReport, junitXml, type Report } from "../../conformance/report.ts";
import { runSuite } from "../../conformance/run.ts";
import { englishModelsDirWithAddons } from "../helpers/models.ts";
import { startTestService, type TestService } from "../helpers/server.ts";

let svc: TestService;
let report: Report;

beforeAll(async () => {
  // Every advertised add-on served, so that random init bodies asking for any of them can succeed.
  svc = await startTestService({ modelsDir: englishModelsDirWithAddons() });
  const all = await svc.account({ plan: { maxConcurrentSessions: 100_000 } });
  const unscoped = await svc.account({ scopes: [] });
  report = await runSuite({
    target: { baseUrl: svc.running.url, key: all.key, unscopedKey: unscoped.key },
    seed: 20260301,
    httpRuns: 4000,
    wsRuns: 150,
  });
}, 90_000);

afterAll(() => svc.stop());

describe("conformance suite against a real service", () => {
  test("no contract violations outside the known-issue allow-list", () => {
    if (report.failures.length) console.log(formatReport(report));
    expect(report.failures.map((f) => `${f.property}: ${f.violations.map((v) => v.check).join(",")}`)).toEqual([]);
  });

  test("every operation of the OpenAPI document was exercised, with positive, negative and auth cases", async () => {
    const contract = buildContract(await localDocuments());
    for (const op of contract.operations) {
      const counts = report.statuses[op.operationId] ?? {};
      const total = Object.values(counts).reduce((s, n) => s + n, 0);
      expect({ op: op.operationId, enough: total >= 20 }).toEqual({ op: op.operationId, enough: true });
      // Public operations (the health probes, `security: []`) have no auth cases.
      if (op.secured) {
        expect(counts[401] ?? 0).toBeGreaterThan(0);
        expect(counts[403] ?? 0).toBeGreaterThan(0);
      }
      if (op.body) expect(counts[400] ?? 0).toBeGreaterThan(0);
    }
    // Success paths were reached too, not only refusals.
    expect(report.statuses.createLiveSession?.[201] ?? 0).toBeGreaterThan(0);
    expect(report.statuses.getLiveSession?.[200] ?? 0).toBeGreaterThan(0);
    expect(report.statuses.listLiveSessions?.[200] ?? 0).toBeGreaterThan(0);
    expect(report.areas.http.cases).toBeGreaterThanOrEqual(3800);
  });

  test("WebSocket sequences ran and closed with documented codes; a healthy session ran alongside", () => {
    expect(report.areas.ws.cases).toBeGreaterThanOrEqual(150);
    expect(report.closeCodes[1000] ?? 0).toBeGreaterThan(50);
    expect(report.properties.find((p) => p.name === "ws healthy concurrent session")?.ok).toBe(true);
  });

  test("the lifecycle sequence ran and callbacks were received and checked", () => {
    expect(report.properties.find((p) => p.area === "stateful")?.ok).toBe(true);
    expect(report.areas.callback.cases).toBeGreaterThan(3);
    expect(report.areas.callback.failures).toBe(0);
  });

  test("the JUnit report lists one case per property", () => {
    const xml = junitXml(report);
    expect(xml.match(/<testcase /g)?.length).toBe(report.properties.length);
  });

});
