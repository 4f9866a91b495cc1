import { describe, expect, test } from "bun:test";
import { endsInsideNumber, startsWithNumber, toNumerals } from "./numerals.ts";

const state = (text: string) => ({ text, words: text.split(" ").map((w, i) => ({ word: w, start: i, end: i + 0.5, confidence: 0.9 })) });
const rewrite = (text: string, language = "en") => toNumerals(state(text), language).state.text;

describe("numerals", () => {
  test.each([
    ["My number is five five five, one two three four.", "My number is 5551234."],
    ["It costs twenty five dollars and thirty cents.", "It costs $25.30."],
    ["I was born on the fourth of July nineteen ninety two at three thirty pm.", "I was born on the 4th of July 1992 at 3:30 pm."],
    ["We need two hundred and fifty three thousand people.", "We need 253000 people."],
    ["It is the twenty first of March twenty twenty four.", "It is the 21st of March 2024."],
    ["Rates rose three point five percent by ten o'clock.", "Rates rose 3.5% by 10:00."],
    ["Meet at seven oh five a.m. with four hundred euros.", "Meet at 7:05 a.m. with €400."],
    ["One hundred and one dalmatians.", "101 dalmatians."],
    ["My number is two zero 2, 5, 5, 5, 0, 1, 9, 3.", "My number is 2025550193."],
    ["Room 5, floor 3.5, 2 cats.", "Room 5, floor 3.5, 2 cats."],
    ["Give me 2, 3 minutes.", "Give me 2, 3 minutes."],
    ["My phone number is too zero to 5, 5, 5, 0, 1, 9, 3", "My phone number is 2025550193"],
    ["My phone number is too 0 to 5550193", "My phone number is too 0 to 5550193"],
    ["From zero to five, for two days, too.", "From 0 to 5, for 2 days, too."],
    ["It costs 25 dollars, 1,000 euros or 3.5 percent.", "It costs $25, €1000 or 3.5%."],
    ["At 3 30 pm, room 12.", "At 3:30 pm, room 12."],
  ])("%s", (spoken, written) => {
    expect(rewrite(spoken)).toBe(written);
  });

  test.each([
    "There are a few of them, one of us is the first winner.",
    "Wait a second, the second one is fine.",
  ])("words that are not numbers stay: %s", (text) => {
    expect(rewrite(text)).toBe(text);
  });

  test("words follow the text", () => {
    const r = toNumerals(state("card four one one one one one one one one one one one one one one one"), "en").state;
    expect(r.words.map((w) => w.word)).toEqual(["card", "4111111111111111"]);
    expect(r.words[1]).toMatchObject({ start: 1, end: 16.5 });
  });

  test("languages without a reader pass through", () => {
    expect(rewrite("cinq cinq cinq", "fr")).toBe("cinq cinq cinq");
  });
});

describe("where a spoken number may continue", () => {
  test.each([
    ["my card number is four one one one", true],
    ["it was twenty five dollars and", false],
    ["it costs twenty and", true],
    ["three point", true],
    ["I have twenty.", true],
    ["is it twenty?", false],
    ["the first", false],
    ["hello there", false],
  ])("%s → %p", (text, expected) => {
    expect(endsInsideNumber(text, "en")).toBe(expected);
  });

  test("starts with a number", () => {
    expect(startsWithNumber("One one one one.", "en")).toBe(true);
    expect(startsWithNumber("4111 is it", "en")).toBe(true);
    expect(startsWithNumber("Thanks.", "en")).toBe(false);
  });
});
