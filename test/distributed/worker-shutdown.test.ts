/**
 * `bun run worker` as a real process: SIGTERM ends it within its bounded drain even when Redis is
 * unreachable (the deregistration and the stream reads can never complete).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startRedis, uniquePrefix, type TestRedis } from "./redis.ts";
import { spawnWorker } from "./workers.ts";

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
}, 30_000);
afterAll(async () => {
  await redis.stop().catch(() => {});
});

test("SIGTERM with Redis gone: the worker exits within WORKER_SHUTDOWN_MS", async () => {
  const worker = await spawnWorker({ redisUrl: redis.url, prefix: uniquePrefix("shutdown"), id: "w-shutdown", env: { WORKER_SHUTDOWN_MS: "2000" } });
  await redis.stop();
  await Bun.sleep(300);
  const started = Date.now();
  worker.proc.kill("SIGTERM");
  const exited = await Promise.race([worker.proc.exited.then(() => true), Bun.sleep(8_000).then(() => false)]);
  if (!exited) worker.proc.kill("SIGKILL");
  expect(exited).toBe(true);
  expect(Date.now() - started).toBeLessThan(4_000);
  expect(worker.output()).toContain("worker stopping");
}, 20_000);

test("SIGTERM with Redis up: the worker deregisters and exits 0", async () => {
  await redis.start();
  const worker = await spawnWorker({ redisUrl: redis.url, prefix: uniquePrefix("shutdown"), id: "w-clean", env: { WORKER_SHUTDOWN_MS: "5000" } });
  worker.proc.kill("SIGTERM");
  expect(await worker.proc.exited).toBe(0);
  expect(worker.output()).toContain('"msg":"worker stopped"');
}, 20_000);
