/**
 * Redis outages: calls in flight when Redis goes away stall and complete once it is back, none is
 * lost — whether Redis restarts empty on the same port (streams and groups gone: the gateway
 * re-sends its pending jobs, workers recreate their groups) or hangs (SIGSTOP) and resumes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisCoordinator } from "../../workers/coordinator/redis.ts";
import { startRedis, uniquePrefix, type TestRedis } from "./redis.ts";
import { CLIPS, eventually, spawnWorker, words, type WorkerProcess } from "./workers.ts";

let redis: TestRedis;
let gateway: RedisCoordinator;
const workers: WorkerProcess[] = [];
const prefix = uniquePrefix("outage");

beforeAll(async () => {
  redis = await startRedis();
  // Each job is held 400 ms so several are mid-flight when Redis disappears.
  workers.push(await spawnWorker({ redisUrl: redis.url, prefix, id: "steady", concurrency: 2, env: { WORKER_JOB_DELAY_MS: "400" } }));
  gateway = await RedisCoordinator.create({ url: redis.url, prefix, registryRefreshMs: 100, jobTimeoutMs: 60_000 });
}, 90_000);

afterAll(async () => {
  if (process.env.DEBUG_WORKERS) for (const w of workers) console.log(w.id, w.output());
  await gateway?.close();
  await Promise.all(workers.map((w) => w.kill("SIGKILL")));
  await redis?.stop();
});

function burst(session: string, count: number) {
  return Array.from({ length: count }, (_, i) => {
    const clip = CLIPS[i % CLIPS.length];
    return {
      expected: clip.token,
      call: gateway.transcribe({ sessionId: session, utteranceId: `0:${i}`, seq: 1, model: "trantoria-1", request: { audio: clip.audio, partial: false } }),
    };
  });
}

describe.skipIf(!!process.env.REDIS_URL)("redis outage", () => {
  test("Redis killed for 5 s and restarted empty: in-flight calls stall, then all complete", async () => {
    const calls = burst("s-restart", 6);
    await eventually(async () => (await gateway.metrics()).models[0]?.inFlight > 0, 5000, "jobs in flight");
    let settledDuringOutage = 0;
    for (const c of calls) c.call.then(() => settledDuringOutage++, () => settledDuringOutage++);

    await redis.stop();
    const before = settledDuringOutage;
    await Bun.sleep(5000);
    // jobs still queued in Redis could not finish while it was gone
    expect(settledDuringOutage).toBeLessThan(calls.length);
    await redis.start();

    const results = await Promise.all(calls.map((c) => c.call));
    expect(results.map((r) => words(r.text))).toEqual(calls.map((c) => c.expected));
    expect(before).toBeLessThan(calls.length);
    const m = await gateway.metrics();
    expect(m.resent).toBeGreaterThan(0);
    expect(m.pendingCalls).toBe(0);
    // the worker re-registered on the new server and the queue is empty again
    expect(m.workers).toBe(1);
    await eventually(async () => (await gateway.metrics()).models[0]?.depth === 0, 5000, "the queue to drain");
    // and new work flows as usual
    const after = await gateway.transcribe({ sessionId: "s-restart", utteranceId: "1:0", seq: 1, model: "trantoria-1", request: { audio: CLIPS[2].audio, partial: false } });
    expect(words(after.text)).toBe("zero");
  }, 90_000);

  test("Redis frozen (SIGSTOP) for 2 s: calls stall, then complete", async () => {
    const calls = burst("s-freeze", 4);
    await Bun.sleep(100);
    redis.pause();
    let settled = 0;
    for (const c of calls) c.call.then(() => settled++, () => settled++);
    await Bun.sleep(2000);
    expect(settled).toBeLessThan(calls.length);
    redis.resume();
    const results = await Promise.all(calls.map((c) => c.call));
    expect(results.map((r) => words(r.text))).toEqual(calls.map((c) => c.expected));
  }, 90_000);
});
