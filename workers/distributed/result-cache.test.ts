import { describe, expect, test } from "bun:test";
import { ResultCache } from "./result-cache.ts";

describe("result cache", () => {
  const r = (text: string) => ({ text, language: "en", confidence: 1, words: [], noSpeech: false });

  test("keeps the most recently used entries up to its capacity", () => {
    const cache = new ResultCache(2);
    cache.set("a", r("a"));
    cache.set("b", r("b"));
    expect(cache.get("a")?.text).toBe("a"); // a is now the most recent
    cache.set("c", r("c"));
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")?.text).toBe("a");
    expect(cache.get("c")?.text).toBe("c");
    expect(cache.size).toBe(2);
  });

  test("expired entries are not returned", () => {
    const cache = new ResultCache(4, -1);
    cache.set("a", r("a"));
    expect(cache.get("a")).toBeUndefined();
  });
});
