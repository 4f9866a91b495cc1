import { describe, expect, test } from "bun:test";
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { mergeFinals, NumberHold, type HeldFinal } from "./hold.ts";
import { withoutPunctuation } from "./punctuation.ts";
import { spellingReplacer, vocabularyReplacer } from "./spelling.ts";

const state = (text: string) => ({ text, words: text.split(/\s+/).map((w, i) => ({ word: w, start: i, end: i + 0.5, confidence: 0.9 })) });

describe("punctuation: false", () => {
  test("marks go, inner marks and symbols stay, sentence case goes except proper nouns, I and acronyms", () => {
    const r = withoutPunctuation(state('Hello, world. This is John Smith - from Paris! Don\'t stop; it\'s 3.5% at 7:05. NASA said: "yes". I agree?'));
    expect(r.state.text).toBe("hello world this is John Smith from Paris don't stop it's 3.5% at 7:05 NASA said yes I agree");
    expect(r.state.words.map((w) => w.word)).toEqual(r.state.text.split(" "));
  });

  test("addresses keep their inner marks", () => {
    expect(withoutPunctuation(state("Write to sarah@example.com, please.")).state.text).toBe("write to sarah@example.com please");
  });
});

describe("custom_spelling", () => {
  const r = spellingReplacer({ spelling_dictionary: { Gettleman: ["gettleman", "get a man"], SQL: ["sequel"], K8s: ["kubernetes"] } });

  test("whole words, case-insensitive, multi-word variants across whitespace", () => {
    const out = r.apply(state("We use Sequel and GET A man on kubernetes, sequels too."));
    expect(out.state.text).toBe("We use SQL and Gettleman on K8s, sequels too.");
    expect(out.state.words.map((w) => w.word)).toEqual(["We", "use", "SQL", "and", "Gettleman", "on", "K8s,", "sequels", "too."]);
    expect(out.state.words[4]).toMatchObject({ start: 4, end: 6.5 });
  });

  test("variants are text, not patterns", () => {
    const p = spellingReplacer({ spelling_dictionary: { "C++": ["c plus plus"], X: ["a.b"] } });
    expect(p.apply(state("I like c plus plus and aXb but a.b")).state.text).toBe("I like C++ and aXb but X");
  });
});

describe("custom_vocabulary (text side)", () => {
  test("pronunciations and other casings of an entry are written as the entry", () => {
    const r = vocabularyReplacer({ vocabulary: ["Gladia", { value: "Kubernetes", pronunciations: ["cooper netties"] }] });
    expect(r.apply(state("gladia runs on cooper netties")).state.text).toBe("Gladia runs on Kubernetes");
  });
});

const utt = (text: string, start: number, end: number, channel = 0): Utterance => ({ ...state(text), start, end, confidence: 0.9, channel, language: "en" });

describe("number hold (audio time)", () => {
  function harness() {
    const released: HeldFinal[] = [];
    const hold: NumberHold = new NumberHold((f) => {
      const back = hold.expire(f);
      if (back) released.push(back);
    });
    return { hold, released };
  }

  test("a final ending inside a number waits and is joined with the rest of the number", () => {
    const { hold, released } = harness();
    expect(hold.offer({ id: "0:0", utterance: utt("My card is four one one one.", 1, 3) })).toEqual([]);
    expect(hold.heldFrom()).toBe(1);
    const out = hold.offer({ id: "0:1", utterance: utt("one one one one, thank you.", 3.5, 5) });
    expect(out).toHaveLength(1);
    expect(out[0]!.id).toBe("0:0");
    expect(out[0]!.utterance).toMatchObject({ text: "My card is four one one one one one one one, thank you.", start: 1, end: 5 });
    expect(out[0]!.utterance.words.map((w) => w.word).join(" ")).toBe(out[0]!.utterance.text);
    expect(released).toEqual([]);
    expect(hold.heldFrom()).toBeNull();
  });

  test("a continuation that still ends inside the number is held again, then released by the audio", () => {
    const { hold, released } = harness();
    hold.offer({ id: "0:0", utterance: utt("four one one one", 0, 1) });
    expect(hold.offer({ id: "0:1", utterance: utt("one one one one", 1.5, 2.5) })).toEqual([]);
    hold.advance(0, 4.1, null);
    expect(released.map((f) => [f.id, f.utterance.text])).toEqual([["0:0", "four one one one one one one one"]]);
  });

  test("without a continuation the held final is released once the audio runs past the hold, or before the next final", () => {
    const { hold, released } = harness();
    hold.offer({ id: "0:0", utterance: utt("call five five five", 0, 2) });
    hold.advance(0, 3.4, null); // 1.4 s of audio after its end: a speech start may still be unconfirmed
    expect(released).toEqual([]);
    hold.advance(0, 3.5, null);
    expect(released.map((f) => f.id)).toEqual(["0:0"]);
    hold.offer({ id: "0:1", utterance: utt("it is twenty", 3, 4) });
    expect(hold.offer({ id: "0:2", utterance: utt("Thanks.", 5, 6) }).map((f) => f.id)).toEqual(["0:1", "0:2"]);
    hold.advance(0, 20, null);
    expect(released.map((f) => f.id)).toEqual(["0:0"]);
  });

  test("the join does not depend on recognition latency: a next utterance begun within the hold is waited for, however late its final", () => {
    const { hold, released } = harness();
    hold.offer({ id: "0:0", utterance: utt("my number is four one one one", 0, 2) });
    // The next utterance began 0.9 s after (audio), and the audio is 10 s further on while its
    // recognition is still running: the held final waits (a wall-clock hold would have let it go).
    hold.advance(0, 3, 2.9);
    hold.advance(0, 12, 2.9);
    expect(released).toEqual([]);
    const out = hold.offer({ id: "0:1", utterance: utt("one one one one, thanks.", 2.9, 4.5) });
    expect(out.map((f) => [f.id, f.utterance.text])).toEqual([["0:0", "my number is four one one one one one one one, thanks."]]);
  });

  test("a next utterance within the hold whose first partial does not begin with a number releases the held final at once", () => {
    const { hold, released } = harness();
    hold.offer({ id: "0:0", utterance: utt("Two.", 6, 6.7) });
    // Its first partial: no number, so no join; the held final does not wait for that utterance's final.
    hold.heard(0, 7.4, "");
    hold.heard(0, 7.4, "one one");
    expect(released).toEqual([]);
    hold.heard(0, 7.4, "Call me back on");
    expect(released.map((f) => f.id)).toEqual(["0:0"]);
    // A partial of an utterance before the held one's end (an older one) says nothing.
    hold.offer({ id: "0:2", utterance: utt("it is twenty", 10, 11) });
    hold.heard(0, 9, "Thanks");
    expect(released.map((f) => f.id)).toEqual(["0:0"]);
  });

  test("a next utterance starting beyond the hold releases the held final at once", () => {
    const { hold, released } = harness();
    hold.offer({ id: "0:0", utterance: utt("four one one one", 0, 2) });
    hold.advance(0, 3.4, 3.3);
    expect(released.map((f) => f.id)).toEqual(["0:0"]);
  });

  test("a number after a pause longer than the hold (in audio time) is a new final", () => {
    const { hold } = harness();
    hold.offer({ id: "0:0", utterance: utt("four one one one", 0, 2) });
    expect(hold.offer({ id: "0:1", utterance: utt("two zero two", 3.5, 5) }).map((f) => f.id)).toEqual(["0:0"]);
    expect(hold.flush().map((f) => f.id)).toEqual(["0:1"]);
  });

  test("a released final is taken back only if still held", () => {
    const hold = new NumberHold(() => {});
    const f = { id: "0:0", utterance: utt("four one", 0, 1) };
    hold.offer(f);
    expect(hold.offer({ id: "0:1", utterance: utt("Thanks.", 1.5, 2) }).map((x) => x.id)).toEqual(["0:0", "0:1"]);
    expect(hold.expire(f)).toBeNull();
  });

  test("channels are held apart; flush releases everything", () => {
    const { hold } = harness();
    hold.offer({ id: "0:0", utterance: utt("four one", 0, 1, 0) });
    expect(hold.offer({ id: "1:0", utterance: utt("one two", 0, 1, 1) })).toEqual([]);
    expect(hold.flush().map((f) => f.id)).toEqual(["0:0", "1:0"]);
  });

  test("merge keeps the earliest start and the lowest confidence", () => {
    const m = mergeFinals({ id: "a", utterance: { ...utt("one two,", 0, 1), confidence: 0.8 } }, { id: "b", utterance: { ...utt("three", 1, 2), confidence: 0.6 } });
    expect(m.utterance).toMatchObject({ text: "one two three", start: 0, end: 2, confidence: 0.6 });
  });
});

describe("number hold tokens", () => {
  test("a merged final carries the tokens of both", () => {
    const hold = new NumberHold<number>(() => {});
    hold.offer({ id: "0:0", utterance: utt("four one", 0, 1), tokens: [1] });
    expect(hold.offer({ id: "0:1", utterance: utt("one, thanks", 1.5, 2), tokens: [2] })[0]?.tokens).toEqual([1, 2]);
  });
});
