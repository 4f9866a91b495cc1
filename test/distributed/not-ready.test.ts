/**
 * A Redis that answers but cannot serve yet (loading its data after a restart, busy running a
 * script) is waited out like a broken connection: its errors are not command faults. A real server
 * made busy by a long script stands in for one loading its append-only file (both answer at once
 * with an error that passes).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ErrorReply } from "redis";
import { connectRedis, dropClient, isReplyError, retryWhileDisconnected, type RedisClient } from "../../common/redis/client.ts";
import { startRedis, type TestRedis } from "./redis.ts";

let redis: TestRedis;
let admin: RedisClient;
let client: RedisClient;

/** Lua that spins for `ms` milliseconds. */
const spin = (ms: number) => `
local t = redis.call('TIME')
local start = tonumber(t[1]) * 1000000 + tonumber(t[2])
while true do
  local n = redis.call('TIME')
  if tonumber(n[1]) * 1000000 + tonumber(n[2]) - start > ${ms * 1000} then return 1 end
end`;

beforeAll(async () => {
  redis = await startRedis();
  admin = await connectRedis({ url: redis.url });
  client = await connectRedis({ url: redis.url });
});

afterAll(async () => {
  dropClient(admin);
  dropClient(client);
  await redis.stop();
  redis.cleanup();
});

test.skipIf(!!process.env.REDIS_URL)("BUSY passes (retried until Redis serves again); WRONGTYPE is a command fault", async () => {
  await admin.configSet("busy-reply-threshold", "50");
  const busy = await connectRedis({ url: redis.url });
  try {
    // The script runs 3 s so that the SET below reaches Redis while it runs, even on a busy runner.
    const script = busy.eval(spin(3000), { keys: [], arguments: [] });
    await Bun.sleep(200);
    const refused = await client.set("not-ready:k", "v").then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(ErrorReply);
    expect(String(refused)).toContain("BUSY");
    expect(isReplyError(refused)).toBe(false);
    // Waited out: written once the script is done.
    expect(await retryWhileDisconnected(() => client.set("not-ready:k", "v"), 10_000)).toBe("OK");
    expect(await script).toBe(1);
  } finally {
    dropClient(busy);
  }
  await client.lPush("not-ready:list", "x");
  const fault = await client.get("not-ready:list").then(() => null, (e: unknown) => e);
  expect(String(fault)).toContain("WRONGTYPE");
  expect(isReplyError(fault)).toBe(true);
  await expect(retryWhileDisconnected(() => client.get("not-ready:list"), 5_000)).rejects.toThrow("WRONGTYPE");
});
