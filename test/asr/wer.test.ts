import { describe, expect, test } from "bun:test";
import { normalizeWords, wordEdits, wordErrorRate } from "./wer.ts";

describe("word error rate", () => {
  test("normalisation: lower case, punctuation stripped, accents kept", () => {
    expect(normalizeWords("And so, my fellow Americans: ask not!")).toEqual(["and", "so", "my", "fellow", "americans", "ask", "not"]);
    expect(normalizeWords("Forêts et conseiller général.")).toEqual(["forêts", "et", "conseiller", "général"]);
    expect(normalizeWords("the neighbor's well-kept house")).toEqual(["the", "neighbors", "wellkept", "house"]);
  });

  test("edits count substitutions, deletions and insertions", () => {
    expect(wordEdits(["a", "b", "c"], ["a", "b", "c"])).toBe(0);
    expect(wordEdits(["a", "b", "c"], ["a", "x", "c"])).toBe(1);
    expect(wordEdits(["a", "b", "c"], ["a", "c"])).toBe(1);
    expect(wordEdits(["a", "b", "c"], ["x", "a", "b", "c"])).toBe(1);
    expect(wordEdits(["a", "b"], [])).toBe(2);
    expect(wordEdits([], ["a"])).toBe(1);
  });

  test("rate over reference words", () => {
    expect(wordErrorRate("one hen two ducks", "won hen too ducks")).toBe(0.5);
    expect(wordErrorRate("Hello, world.", "hello world")).toBe(0);
    expect(wordErrorRate("", "")).toBe(0);
    expect(wordErrorRate("", "noise")).toBe(1);
  });
});
