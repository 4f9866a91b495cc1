/**
 * `bun run generate` is deterministic and generated/ is current: regenerating into a temporary
 * folder gives byte-identical files (the script's --check mode; docs/ skipped for speed).
 */
import { expect, test } from "bun:test";
import path from "node:path";

const root = path.resolve(import.meta.dir, "../..");

test("regenerating from contracts/ reproduces generated/ byte for byte", async () => {
  const proc = Bun.spawn(["bun", "scripts/generate.ts", "--check", "--no-docs"], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(err).toBe("");
  expect(out).toContain("generated/ is up to date");
  expect(code).toBe(0);
}, 30_000);
