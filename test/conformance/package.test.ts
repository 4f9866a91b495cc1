/**
 * The conformance suite as other teams get it: `npm pack` in conformance/ builds a tarball with a
 * `live-stt-conformance` bin and no dependencies; run through `npx` and `bunx` straight from that
 * tarball (no clone, no install), against a service started as the README says (loopback callback
 * targets refused): `--help`, then a short run that passes, skips callbacks with a notice naming
 * CALLBACKS_ALLOW_LOOPBACK=true and writes JUnit with stable names and per-case times.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startTestService, type TestService } from "../helpers/server.ts";

const REPO = path.resolve(import.meta.dir, "../..");
const work = mkdtempSync(path.join(tmpdir(), "conformance-pack-"));
let tarball: string;
let svc: TestService;
let key: string;

async function run(cmd: string[], cwd = work): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn(cmd, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, npm_config_update_notifier: "false" } });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, out, err };
}

const npx = (args: string[]) => run(["npx", "--yes", "--offline", `--package=${tarball}`, "--", "live-stt-conformance", ...args]);

beforeAll(async () => {
  const packed = await run(["npm", "pack", "--pack-destination", work], path.join(REPO, "conformance"));
  if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.err}`);
  tarball = path.join(work, packed.out.trim().split("\n").at(-1)!);
  svc = await startTestService({ env: { CALLBACKS_ALLOW_LOOPBACK: "false" } });
  key = (await svc.account({ plan: { maxConcurrentSessions: 1000 } })).key;
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

describe("packaged conformance suite", () => {
  test("the tarball holds only the bundled bin, the documents and the README, with no dependencies", async () => {
    const listing = await run(["tar", "-tzf", tarball]);
    expect(listing.out.trim().split("\n").sort()).toEqual(["package/README.md", "package/dist/asyncapi.json", "package/dist/cli.js", "package/dist/openapi.json", "package/package.json"]);
    const manifest = JSON.parse((await run(["tar", "-xzOf", tarball, "package/package.json"])).out);
    expect(manifest.bin).toEqual({ "live-stt-conformance": "dist/cli.js" });
    expect(manifest.dependencies).toBeUndefined();
  }, 30_000);

  test("--help through npx and bunx from the tarball", async () => {
    const viaNpx = await npx(["--help"]);
    expect(viaNpx.code).toBe(0);
    expect(viaNpx.out).toStartWith("usage: live-stt-conformance --base-url <url> --key <x-service-key>");
    const viaBunx = await run(["bunx", "--package", tarball, "live-stt-conformance", "--help"]);
    expect(viaBunx.code).toBe(0);
    expect(viaBunx.out).toContain("--require-callbacks");
    const bad = await npx(["--base-url"]);
    expect(bad.code).toBe(2);
  }, 60_000);

  test("a short run passes, skips callbacks with a notice naming CALLBACKS_ALLOW_LOOPBACK=true, writes JUnit", async () => {
    const junit = path.join(work, "report.xml");
    const r = await npx(["--base-url", svc.running.url, "--key", key, "--seed", "7", "--runs", "60", "--ws-runs", "4", "--junit", junit]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("0 failing properties");
    expect(r.out).toContain('NOTICE: callback "callbacks" skipped:');
    expect(r.out).toContain("CALLBACKS_ALLOW_LOOPBACK=true");
    const xml = readFileSync(junit, "utf8");
    const cases = [...xml.matchAll(/<testcase classname="([^"]+)" name="([^"]+)" time="(\d+\.\d{3})"/g)];
    expect(cases.length).toBeGreaterThan(10);
    for (const [, classname, name] of cases) {
      expect(classname).toMatch(/^conformance\.(http|ws|stateful|callback)$/);
      expect(name).not.toMatch(/\(\d+ cases\)/);
    }
    expect(cases.some(([, classname, name]) => classname === "conformance.stateful" && name === "session lifecycle")).toBe(true);
    expect(cases.map(([, , , time]) => Number(time)).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(xml).toMatch(/<testcase classname="conformance.callback" name="callbacks" time="0.000"><skipped message="[^"]*CALLBACKS_ALLOW_LOOPBACK=true/);
  }, 90_000);

  test("--require-callbacks turns the skipped callbacks into a failure with the same explanation", async () => {
    const r = await npx(["--base-url", svc.running.url, "--key", key, "--seed", "7", "--runs", "1", "--ws-runs", "1", "--require-callbacks"]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("FAIL [stateful] session lifecycle");
    expect(r.out).toContain("callback_delivery: no callback reached the receiver on 127.0.0.1");
    expect(r.out).toContain("CALLBACKS_ALLOW_LOOPBACK=true");
  }, 90_000);
});
