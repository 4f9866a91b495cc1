import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { optionsFromEnv } from "./main.ts";

describe("bun run worker", () => {
  test("reads its settings from the environment", () => {
    const opts = optionsFromEnv({ REDIS_URL: "redis://r:6379", MODELS_DIR: "/m", WORKER_CONCURRENCY: "3", WORKER_ID: "w-7", WORKER_CLAIM_IDLE_MS: "500" });
    expect(opts).toMatchObject({ url: "redis://r:6379", modelsDir: "/m", concurrency: 3, workerId: "w-7", claimIdleMs: 500 });
    expect(opts.heartbeatMs).toBeUndefined();
  });

  test("bad settings are refused with a readable message", () => {
    expect(() => optionsFromEnv({})).toThrow(/REDIS_URL is required/);
    expect(() => optionsFromEnv({ REDIS_URL: "redis://r", WORKER_CONCURRENCY: "two" })).toThrow(/WORKER_CONCURRENCY must be a non-negative number, got "two"/);
  });

  test("the process exits 1 with the reason when misconfigured", async () => {
    const env: Record<string, string> = { ...process.env } as Record<string, string>;
    delete env.REDIS_URL;
    const proc = Bun.spawn(["bun", resolve(import.meta.dir, "main.ts")], { env, stdout: "pipe", stderr: "pipe" });
    expect(await proc.exited).toBe(1);
    expect(await new Response(proc.stderr).text()).toContain("REDIS_URL is required");
  });
});
