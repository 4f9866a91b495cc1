import { describe, expect, test } from "bun:test";
import { applyEdits, locateWords } from "./text.ts";

const words = (text: string) => text.split(" ").map((w, i) => ({ word: w, start: i, end: i + 0.5, confidence: 0.9 - i / 100 }));

describe("applyEdits", () => {
  test("rewrites text, merges the words an edit covers and maps offsets", () => {
    const state = { text: "call five five five now", words: words("call five five five now") };
    const { state: next, map } = applyEdits(state, [{ start: 5, end: 19, text: "555" }]);
    expect(next.text).toBe("call 555 now");
    expect(next.words.map((w) => w.word)).toEqual(["call", "555", "now"]);
    expect(next.words[1]).toEqual({ word: "555", start: 1, end: 3.5, confidence: 0.87 });
    expect([map.start(20), map.end(23)]).toEqual([9, 12]);
    expect(map.landed()).toEqual([{ start: 5, end: 8 }]);
    expect([map.back(6, true), map.back(6, false)]).toEqual([5, 19]);
  });

  test("an edit inside a word keeps the rest of the word; an emptied word disappears", () => {
    const { state } = applyEdits({ text: "Hello, world - ok", words: words("Hello, world - ok") }, [
      { start: 5, end: 6, text: "" },
      { start: 13, end: 15, text: "" },
    ]);
    expect(state.text).toBe("Hello world ok");
    expect(state.words.map((w) => w.word)).toEqual(["Hello", "world", "ok"]);
  });

  test("words that cannot be located collapse into one word of the new text", () => {
    const state = { text: "my card is 4111", words: [{ word: "something else", start: 0, end: 2, confidence: 0.5 }] };
    expect(locateWords(state.text, state.words)).toBeNull();
    const { state: next } = applyEdits(state, [{ start: 11, end: 15, text: "[X]" }]);
    expect(next.words).toEqual([{ word: "my card is [X]", start: 0, end: 2, confidence: 0.5 }]);
  });

  test("overlapping edits: the first wins", () => {
    const { state } = applyEdits({ text: "abc def", words: words("abc def") }, [{ start: 0, end: 5, text: "X" }, { start: 2, end: 7, text: "Y" }]);
    expect(state.text).toBe("Xef");
  });
});
