/**
 * Gateways starting together on an empty Redis with the same BOOTSTRAP_API_KEY: every one of them
 * starts, and they converge on one account and one key.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { bootstrapAccount } from "../../server/bootstrap.ts";
import { createLogger } from "../../server/log.ts";
import { RedisStore } from "../../server/store/redis.ts";
import { startRedis, uniquePrefix, type TestRedis } from "./redis.ts";

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

const quiet = createLogger({ test: true });

test("20 rounds of three gateways bootstrapping the same key at once on an empty store: both start, one account, one key", async () => {
  const key = "bootstrap-race-key-0123456789abcdef";
  const failures: string[] = [];
  for (let round = 0; round < 20; round++) {
    const prefix = uniquePrefix("bootstrap");
    const stores = await Promise.all([0, 1, 2].map(() => RedisStore.connect({ url: redis.url, prefix })));
    try {
      const outcomes = await Promise.allSettled(stores.map((s) => bootstrapAccount(s, key, quiet)));
      for (const o of outcomes) if (o.status === "rejected") failures.push(`round ${round}: ${(o.reason as Error).message}`);
      const accounts = await stores[0]!.listAccounts();
      expect(accounts).toHaveLength(1);
      const found = await stores[1]!.findKeyBySecret(key);
      expect(found?.accountId).toBe(accounts[0]!.id);
      expect(await stores[0]!.listKeys(accounts[0]!.id)).toHaveLength(1);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  }
  expect(failures).toEqual([]);
});
