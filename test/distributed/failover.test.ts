/**
 * Worker failure: a job taken by a worker that is killed (SIGKILL) mid-job is taken over by the
 * other worker (XAUTOCLAIM) with the same result; the registry forgets workers that stop and sees
 * them again when they come back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "redis";
import { RedisCoordinator } from "../../workers/coordinator/redis.ts";
import { NoEndpointError } from "../../workers/contract/types.ts";
import { startRedis, uniquePrefix, type TestRedis } from "./redis.ts";
import { CLIPS, eventually, spawnWorker, words, type WorkerProcess } from "./workers.ts";

let redis: TestRedis;
let gateway: RedisCoordinator;
let probe: ReturnType<typeof createClient>;
const workers: WorkerProcess[] = [];
const prefix = uniquePrefix("failover");
const answeredBy: string[] = [];
const c = CLIPS.find((x) => x.token === "zero")!;
/** Jobs idle 1.2 s are taken over; heartbeats every 200 ms keep a live worker's job well below that. */
const SLOW_CLAIM = { WORKER_CLAIM_IDLE_MS: "1200" };

beforeAll(async () => {
  redis = await startRedis();
  gateway = await RedisCoordinator.create({ url: redis.url, prefix, registryRefreshMs: 100, onReply: (r) => answeredBy.push(r.worker) });
  probe = createClient({ url: redis.url, RESP: 2 });
  await probe.connect();
}, 90_000);

afterAll(async () => {
  await gateway?.close();
  probe?.destroy();
  await Promise.all(workers.map((w) => w.kill("SIGKILL")));
  await redis?.stop();
});

const job = (utteranceId: string) => ({
  sessionId: "s-failover",
  utteranceId,
  seq: 1,
  model: "trantoria-1" as const,
  request: { audio: c.audio, partial: false, languages: ["en"] },
});

describe("worker failure", () => {
  test("kill -9 of a worker mid-job: the other worker completes it with the same result", async () => {
    // The doomed worker holds every job for 5 s, so it is surely mid-job when killed.
    const doomed = await spawnWorker({ redisUrl: redis.url, prefix, id: "doomed", env: { WORKER_JOB_DELAY_MS: "5000", ...SLOW_CLAIM } });
    workers.push(doomed);
    const call = gateway.transcribe(job("0:0"));
    const stream = `${prefix}:jobs:trantoria-1`;
    await eventually(async () => (await probe.xPendingRange(stream, "workers", "-", "+", 10)).some((p) => p.consumer === "doomed"), 10_000, "the doomed worker to take the job");

    const survivor = await spawnWorker({ redisUrl: redis.url, prefix, id: "survivor", env: SLOW_CLAIM });
    workers.push(survivor);
    // While the doomed worker lives, its heartbeat keeps the job from looking idle.
    await Bun.sleep(2000);
    expect((await probe.xPendingRange(stream, "workers", "-", "+", 10)).map((p) => p.consumer)).toEqual(["doomed"]);

    await doomed.kill("SIGKILL");
    const result = await call;
    expect(words(result.text)).toBe("zero");
    expect(answeredBy.at(-1)).toBe("survivor");
    expect(survivor.output()).toContain('"msg":"took over idle job"');
    // the stream holds nothing once the job is done
    await eventually(async () => (await probe.xLen(stream)) === 0, 5000, "the job stream to empty");
  }, 90_000);

  test("capabilities shrink when the only worker stops and grow back when one returns", async () => {
    expect((await gateway.capabilities()).map((x) => x.model)).toEqual(["trantoria-1"]);
    const survivor = workers.find((w) => w.id === "survivor")!;
    await survivor.kill("SIGKILL"); // no clean deregistration: its advertisement must expire
    await eventually(async () => (await gateway.capabilities()).length === 0, 5000, "capabilities to shrink");
    await expect(gateway.transcribe(job("0:1"))).rejects.toBeInstanceOf(NoEndpointError);

    const back = await spawnWorker({ redisUrl: redis.url, prefix, id: "back" });
    workers.push(back);
    await eventually(async () => (await gateway.capabilities()).length === 1, 5000, "capabilities to grow back");
    expect(words((await gateway.transcribe(job("0:2"))).text)).toBe("zero");

    await back.kill("SIGTERM"); // clean stop: deregisters at once
    expect(back.proc.exitCode).toBe(0);
    await eventually(async () => (await gateway.capabilities()).length === 0, 3000, "capabilities to shrink after a clean stop");
  }, 90_000);
});
