/**
 * An inference backlog never costs an admitted session an utterance. One slow worker (each job held
 * 400 ms, one at a time) behind a gateway running in distributed mode with a queue bound of 4:
 * eight sessions sending all their audio at once queue more than the worker's slot plus that bound
 * with their first finals alone (a session's later finals wait for its earlier ones to be
 * recognized), so jobs are refused for several seconds (the gateway's refusal counter says so);
 * every final still arrives, in order, with no `error`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisCoordinator } from "../../workers/coordinator/redis.ts";
import { startTestService, type TestService } from "../helpers/server.ts";
import { chunks, createSession, finalTexts, RawClient, spellingSamples, toPcm16 } from "../pipeline/helpers.ts";
import { startRedis, uniquePrefix, type TestRedis } from "./redis.ts";
import { spawnWorker, type WorkerProcess } from "./workers.ts";

const TOKENS = ["a", "b", "zero"] as const;
const init = { model: "trantoria-1", language_config: { languages: ["en"] } };
const prefix = uniquePrefix("backlog");
let redis: TestRedis;
let worker: WorkerProcess;
let svc: TestService;
let gateway: RedisCoordinator;

beforeAll(async () => {
  redis = await startRedis();
  worker = await spawnWorker({ redisUrl: redis.url, prefix, id: "slow", concurrency: 1, env: { WORKER_JOB_DELAY_MS: "400" } });
  // The gateway's coordinator as the server makes it, but with a small queue bound (the server's is
  // 16) and a job timeout long enough for the whole backlog on a busy machine: this test is about
  // refusals, not the timeout.
  gateway = await RedisCoordinator.create({ url: redis.url, prefix, gatewayId: "gw-backlog", jobTimeoutMs: 180_000, queueLimit: 4 });
  svc = await startTestService({ env: { REDIS_URL: redis.url, REDIS_PREFIX: prefix }, coordinator: gateway });
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  await gateway?.close().catch(() => {});
  await worker?.kill("SIGKILL");
  await redis?.stop();
});

describe("inference backlog", () => {
  test("eight sessions at once on one slow worker: capacity is refused for seconds, every final arrives", async () => {
    const pcm = toPcm16(spellingSamples([...TOKENS]));
    const clients = await Promise.all(
      [0, 1, 2, 3, 4, 5, 6, 7].map(async () => {
        const { url } = await createSession(svc, init);
        const c = new RawClient(url);
        await c.opened;
        for (const f of chunks(pcm, 32000)) c.send(f);
        c.stop();
        return c;
      }),
    );
    const closes = await Promise.all(clients.map((c) => c.closed));
    const metrics = await (await fetch(`${svc.running.url}/metrics`)).text();
    const refused = Number(/^stt_inference_refused_total\{[^}]*\} (\d+)$/m.exec(metrics)?.[1]);
    expect(refused).toBeGreaterThan(0);
    for (const [i, c] of clients.entries()) {
      expect(closes[i]!.code).toBe(1000);
      expect(c.messages.filter((m) => m.type === "error")).toEqual([]);
      expect(finalTexts(c.messages)).toEqual([...TOKENS]);
    }
  }, 240_000);
});
