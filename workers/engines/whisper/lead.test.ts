import { describe, expect, test } from "bun:test";
import { ledSegments } from "./lead.ts";

const w = (word: string, start: number, end: number) => ({ word, start, end, confidence: 0.9 });

describe("ledSegments: what follows a lead, as it is delivered", () => {
  test("the prefix's closing punctuation is dropped, times before the utterance are clamped, the first letter is a capital", () => {
    const out = ledSegments([
      { start: -0.2, end: 0.1, text: ".", words: [w(".", -0.2, 0.1)] },
      { start: -0.1, end: 1.2, text: ". it costs $25.", words: [w(". it", -0.1, 0.3), w(" costs", 0.3, 0.7), w(" $25.", 0.7, 1.2)] },
      { start: 1.3, end: 2, text: " and more", words: [w(" and", 1.3, 1.6), w(" more", 1.6, 2)] },
    ]);
    expect(out.map((s) => s.text)).toEqual(["It costs $25.", "and more"]);
    expect(out[0]!.words.map((x) => x.word)).toEqual(["It", " costs", " $25."]);
    expect(out[0]!.start).toBe(0);
    expect(out[0]!.words[0]!.start).toBe(0);
    // Only the first letter of the first segment changes.
    expect(ledSegments([{ start: 0, end: 1, text: "Yes.", words: [w("Yes.", 0, 1)] }])[0]!.text).toBe("Yes.");
    expect(ledSegments([{ start: 0, end: 1, text: "5 more", words: [w("5", 0, 0.5), w(" more", 0.5, 1)] }])[0]!.text).toBe("5 more");
  });
});
