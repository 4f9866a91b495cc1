import { describe, expect, test } from "bun:test";
import { LoadOnce, loadOnce } from "./load-once.ts";

describe("LoadOnce", () => {
  test("callers of one key share one load", async () => {
    const once = new LoadOnce<string, number>();
    let loads = 0;
    const load = async () => ++loads;
    const [a, b] = await Promise.all([once.get("k", load), once.get("k", load)]);
    expect([a, b, loads]).toEqual([1, 1, 1]);
    expect(await once.get("other", load)).toBe(2);
  });

  test("a failed load is forgotten and tried again", async () => {
    const once = new LoadOnce<string, number>();
    let calls = 0;
    const load = async () => {
      if (++calls === 1) throw new Error("first load fails");
      return calls;
    };
    await expect(once.get("k", load)).rejects.toThrow("first load fails");
    await Bun.sleep(0);
    expect(await once.get("k", load)).toBe(2);
  });

  test("take and takeAll forget what they return", async () => {
    const once = new LoadOnce<string, string>();
    await once.get("a", async () => "A");
    await once.get("b", async () => "B");
    expect(await once.take("a")).toBe("A");
    expect(once.take("a")).toBeUndefined();
    expect(await Promise.all(once.takeAll())).toEqual(["B"]);
    expect(await once.get("b", async () => "B2")).toBe("B2");
  });

  test("loadOnce: one load, again after a failure", async () => {
    let calls = 0;
    const get = loadOnce(async () => {
      if (++calls === 1) throw new Error("no");
      return calls;
    });
    await expect(get()).rejects.toThrow("no");
    await Bun.sleep(0);
    expect(await get()).toBe(2);
    expect(await get()).toBe(2);
  });
});
