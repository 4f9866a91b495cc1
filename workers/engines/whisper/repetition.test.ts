import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { WhisperTokenizer } from "../../tokenizer/whisper.ts";
import { lastClosedSegment, loopCut, loopRepeats } from "./repetition.ts";

const TS = 1000; // token ids from here on stand for timestamps in these tests
const isTs = (t: number) => t >= TS;
const times = (n: number, unit: number[]) => Array.from({ length: n }, () => unit).flat();

describe("repetition loops", () => {
  test("a unit repeated as often as its threshold is a loop, cut after its first occurrence", () => {
    // "My card number is 41-11-11-11-11-11-11": the unit (-, 11) six times.
    const tokens = [1, 2, 3, 4, 41, ...times(6, [7, 11])];
    expect(loopCut(tokens)).toBe(7);
    expect(tokens.slice(0, loopCut(tokens))).toEqual([1, 2, 3, 4, 41, 7, 11]);
    // One repetition fewer is not a loop.
    expect(loopCut([1, 2, 3, 4, 41, ...times(5, [7, 11])])).toBe(-1);
    // A single token needs ten in a row; a longer unit four.
    expect(loopCut([5, ...times(9, [9])])).toBe(-1);
    expect(loopCut([5, ...times(10, [9])])).toBe(2);
    expect(loopCut([5, ...times(4, [1, 2, 3])])).toBe(4);
    expect(loopRepeats(1)).toBeGreaterThan(loopRepeats(2));
  });

  test("speech that repeats a little is not a loop: a word four times, digits of a card number", () => {
    // "no, no, no, no"
    expect(loopCut(times(4, [20, 21]))).toBe(-1);
    // "4-1-1-1, 1-1-1-1, 1-1-1-1": the group repeats three times
    expect(loopCut([4, ...times(3, [7, 1]), 8, 1, ...times(3, [7, 1]), 8, 1, ...times(3, [7, 1])])).toBe(-1);
    expect(loopCut([])).toBe(-1);
  });

  test("timestamps are left out of the comparison: a loop of segments with rising times is found", () => {
    const tokens = [TS, 1, 2, TS + 50, TS + 50, 1, 2, TS + 60, TS + 60, 1, 2, TS + 70, TS + 70, 1, 2, TS + 80, TS + 80, 1, 2, TS + 90];
    // text: 1 2 1 2 1 2 1 2 1 2 → unit (1, 2) five times: not yet a loop; a sixth makes one
    expect(loopCut(tokens, isTs)).toBe(-1);
    const more = [...tokens, TS + 90, 1, 2];
    const cut = loopCut(more, isTs);
    expect(more.slice(0, cut)).toEqual([TS, 1, 2, TS + 50, TS + 50]);
  });

  test("lastClosedSegment is the last timestamp that follows text", () => {
    expect(lastClosedSegment([TS, 1, 2, TS + 50, TS + 50, 3, 4], isTs)).toBe(3);
    expect(lastClosedSegment([TS, 1, 2], isTs)).toBe(-1);
    expect(lastClosedSegment([TS, 1, TS + 5], isTs)).toBe(2);
  });
});

describe("a decode that writes its prompt again", () => {
  test("copiesPrompt: three words or more of the prompt again, together, anywhere in its last forty", async () => {
    const { copiesPrompt, promptLed } = await import("./guards.ts");
    expect(copiesPrompt("I'll say bye to you.", "Speak to me. Come here. I'll say bye to you. Please.")).toBe(true);
    expect(copiesPrompt("Speak to a person", "Speak to a person. Correct.")).toBe(true);
    expect(copiesPrompt("Speak to an agent", "Speak to a person. Correct.")).toBe(false);
    expect(copiesPrompt("Come here.", "Speak to me. Come here. Please.")).toBe(false); // two words: echoesPrompt's and borrowsFromPrompt's
    expect(copiesPrompt("one two three", `one two three ${"word ".repeat(40)}`)).toBe(false);
    // The final's guard: 1.5 s of audio is past the short-reply checks, and not too dense for five words.
    expect(promptLed("I'll say bye to you.", "Speak to me, Oshon. Come here. I'll say bye to you. Please.", 1.51)).toBe(true);
    expect(promptLed("Okay. Two.", "Speak to me, Oshon. Come here. I'll say bye to you. Please.", 1.51)).toBe(false);
  });

  test("echoesPrompt: the prompt's last words again, word for word; a lone short word is not enough", async () => {
    const { echoesPrompt } = await import("./guards.ts");
    expect(echoesPrompt("1, 2, 3, 4", "One. 1, 2, 3, 4.")).toBe(true);
    expect(echoesPrompt("Check my balance.", "Yes. Check my balance")).toBe(true);
    expect(echoesPrompt("Billing.", "1, 2, 3, 4.")).toBe(false);
    expect(echoesPrompt("Yes.", "Yes.")).toBe(false);
    expect(echoesPrompt("my balance please", "check my balance")).toBe(false);
    expect(echoesPrompt("", "anything")).toBe(false);
    // under a word or two of audio, a lone echo counts
    expect(echoesPrompt("5.22.", "No thanks. 5.22", true)).toBe(true);
    expect(echoesPrompt("Yes.", "No thanks. 5.22", true)).toBe(false);
  });

  test("promptLed: a short utterance that is its prompt's last word again is decoded again; a longer one is not", async () => {
    const { promptLed } = await import("./guards.ts");
    expect(promptLed("5.22.", "No thanks. 5.22", 0.68)).toBe(true);
    expect(promptLed("Yes.", "No thanks. Yes", 3)).toBe(false);
    // digits written without spaces are words too
    expect(promptLed("2,3,4,3,4", "1,2,3,4 Feeling Yes, please.", 0.62)).toBe(true);
  });
});

describe("text denser than speech", () => {
  test("tooDense: more words (a digit as a word) than the audio can hold", async () => {
    const { spokenWords, tooDense } = await import("./repetition.ts");
    expect(spokenWords("Call me back on 650-319-8847, any time.")).toBe(4 + 10 + 2);
    expect(tooDense("3, 2, 3, 4, 3, 4, 3, 4", 0.76)).toBe(true);
    expect(tooDense("Billing.", 0.76)).toBe(false);
    expect(tooDense("1, 2, 3, 4", 1.6)).toBe(false);
    expect(tooDense("You can reach me at 415-555-0132.", 3.5)).toBe(false);
  });
});

describe("a short decode borrowing from its prompt", () => {
  test("borrowsFromPrompt: two words in a row of the prompt's end", async () => {
    const { borrowsFromPrompt } = await import("./repetition.ts");
    expect(borrowsFromPrompt("992 main menu", "No thanks. 592. Main menu. Do. Okay.")).toBe(true);
    expect(borrowsFromPrompt("Nine.", "No thanks. 592. Main menu.")).toBe(false);
    expect(borrowsFromPrompt("Yes please.", "Billing.")).toBe(false);
  });
});

describe("loops punctuated differently (real tokenizer)", () => {
  const tokenizer = WhisperTokenizer.load(resolve(import.meta.dir, "../../../../shared/models/whisper-assets"));
  const plain = (t: number) => tokenizer.isTimestamp(t);
  const loose = (t: number) => plain(t) || tokenizer.isPunctuation(t);

  test("punctuation tokens are known as such, words and digits are not", () => {
    const [comma, period, hero, one] = [",", ".", " hero", " 1"].map((x) => tokenizer.encode(x)[0]!);
    expect([comma, period].map((t) => tokenizer.isPunctuation(t))).toEqual([true, true]);
    expect([hero, one, tokenizer.eot].map((t) => tokenizer.isPunctuation(t))).toEqual([false, false, false]);
  });

  test("a phrase repeated with varying punctuation is a loop once punctuation is left out, cut after its first occurrence", () => {
    const tokens = tokenizer.encode(" I'm a hero. I'm a hero, I'm a hero. I'm a hero, I'm a hero");
    expect(loopCut(tokens, plain)).toBe(-1);
    const at = loopCut(tokens, loose, 2);
    expect(at).toBeGreaterThan(0);
    expect(tokenizer.decode(tokens.slice(0, at))).toBe(" I'm a hero.");
  });

  test("a card number of one digit over and over is not a loop that way, nor is a word said four times", () => {
    expect(loopCut(tokenizer.encode(" 4-1-1-1, 1-1-1-1, 1-1-1-1, 1-1-1-1."), loose, 2)).toBe(-1);
    expect(loopCut(tokenizer.encode(" 4111, 1111, 1111, 1111."), loose, 2)).toBe(-1);
    expect(loopCut(tokenizer.encode(" No, no. No, no."), loose, 2)).toBe(-1);
    expect(loopCut(tokenizer.encode(" Thank you. Thank you, thank you."), loose, 2)).toBe(-1);
  });
});
