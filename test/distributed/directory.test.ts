/**
 * Session ownership across gateways (RedisDirectory) on a private redis-server: one holder at a time,
 * hand-over on request, and a dead gateway's sessions claimable once its lease runs out.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisDirectory } from "../../server/cluster/redis-directory.ts";
import { startRedis, uniquePrefix, type TestRedis } from "./redis.ts";

let redis: TestRedis;
const open: RedisDirectory[] = [];
const prefix = uniquePrefix("directory");

async function gateway(id: string, leaseMs = 10_000): Promise<RedisDirectory> {
  const d = await RedisDirectory.connect({ url: redis.url, prefix, gatewayId: id, leaseMs });
  open.push(d);
  return d;
}

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);

afterAll(async () => {
  for (const d of open) await d.close();
  await redis?.stop();
});

describe("RedisDirectory", () => {
  test("a session has one holder; the holder re-claims it, others learn who holds it", async () => {
    const a = await gateway("a1");
    const b = await gateway("b1");
    expect(await a.claim("s1")).toBeNull();
    expect(await a.claim("s1")).toBeNull();
    expect(await b.claim("s1")).toBe("a1");
    await a.release("s1");
    expect(await b.claim("s1")).toBeNull();
    expect(await a.claim("s1")).toBe("b1");
  });

  test("hand-over: the holder runs its handler (storing state), releases, and the asker holds the session", async () => {
    const a = await gateway("a2");
    const b = await gateway("b2");
    const handed: string[] = [];
    a.onHandOverRequest(async (id) => {
      await Bun.sleep(100); // storing the session's state takes a moment
      handed.push(id);
    });
    expect(await a.claim("s2")).toBeNull();
    expect(await b.handOver("s2", "a2", 5_000)).toBe(true);
    expect(handed).toEqual(["s2"]);
    expect(await a.claim("s2")).toBe("b2");
  });

  test("a holder that never answers keeps its session until the asker gives up", async () => {
    const a = await gateway("a3");
    const b = await gateway("b3");
    a.onHandOverRequest(() => new Promise(() => {}));
    expect(await a.claim("s3")).toBeNull();
    expect(await b.handOver("s3", "a3", 600)).toBe(false);
    expect(await b.claim("s3")).toBe("a3");
  });

  test("a dead gateway's lease runs out and its session can be taken", async () => {
    const dead = await gateway("dead", 400);
    const b = await gateway("b4");
    expect(await dead.claim("s4")).toBeNull();
    // Simulate a crash: the holder stops renewing and answering without releasing.
    clearInterval((dead as unknown as { renewTimer: ReturnType<typeof setInterval> }).renewTimer);
    dead.onHandOverRequest(() => new Promise(() => {}));
    const started = Date.now();
    expect(await b.handOver("s4", "dead", 5_000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test("a held lease is renewed while held, so it outlives its initial duration", async () => {
    // A 1 s lease (renewed every 250 ms) outlives a 750 ms stall of this process; 2.5 s is well past it.
    const a = await gateway("a5", 1000);
    const b = await gateway("b5");
    expect(await a.claim("s5")).toBeNull();
    await Bun.sleep(2_500);
    expect(await b.claim("s5")).toBe("a5");
  });
});
