import { describe, expect, test } from "bun:test";
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { applyDefaults } from "../options/defaults.ts";
import { contextLanguage, previousText, promptCase, sessionVocabulary } from "./context.ts";

const u = (channel: number, text: string, language = "en"): Utterance => ({ start: 0, end: 1, confidence: 1, channel, words: [], text, language });

describe("decoding context of a session", () => {
  test("custom vocabulary: strings and items, default intensity, off unless enabled", () => {
    const on = applyDefaults({
      realtime_processing: {
        custom_vocabulary: true,
        custom_vocabulary_config: { vocabulary: ["Gladia", { value: "Quilter", intensity: 0.9, pronunciations: ["kwilter"] }], default_intensity: 0.3 },
      },
    });
    expect(sessionVocabulary(on)).toEqual([
      { phrase: "Gladia", intensity: 0.3 },
      { phrase: "Quilter", intensity: 0.9, pronunciations: ["kwilter"] },
    ]);
    const off = applyDefaults({ realtime_processing: { custom_vocabulary: false, custom_vocabulary_config: { vocabulary: ["x"] } } });
    expect(sessionVocabulary(off)).toEqual([]);
    expect(sessionVocabulary(applyDefaults({}))).toEqual([]);
  });

  test("previous text: the channel's committed utterances in order, bounded, cut at a word", () => {
    const us = [u(0, "First one."), u(1, "Other channel."), u(0, "Second one.")];
    expect(previousText(us, 0)).toBe("First one. Second one.");
    expect(previousText(us, 1)).toBe("Other channel.");
    expect(previousText(us, 2)).toBe("");
    const long = Array.from({ length: 200 }, (_, i) => u(0, `word${i} and more.`));
    const text = previousText(long, 0);
    expect(text.length).toBeLessThanOrEqual(600);
    expect(text.endsWith("word199 and more.")).toBe(true);
    expect(text.split(" ")[0]).toMatch(/^(word\d+|and|more\.)$/);
  });

  test("previous text holds one language: the channel's latest utterances back to one in another", () => {
    const us = [u(0, "Earlier English."), u(0, "スピックス。", "ja"), u(1, "Autre canal.", "fr"), u(0, "Come here."), u(0, "Three.")];
    expect(contextLanguage(us, 0)).toBe("en");
    expect(previousText(us, 0)).toBe("Come here. Three.");
    expect(contextLanguage(us, 1)).toBe("fr");
    expect(contextLanguage(us, 2)).toBeUndefined();
    // Asked for a language: its utterances before the latest of another language.
    expect(previousText(us.slice(0, 2), 0, "en")).toBe("");
    expect(previousText(us.slice(0, 2), 0)).toBe("スピックス。");
    // An utterance of unknown language belongs to any context.
    expect(previousText([u(0, "One."), u(0, "Two.", ""), u(0, "Three.")], 0)).toBe("One. Two. Three.");
  });

  test("an utterance written all in capitals is prompted in sentence case; others as transcribed", () => {
    expect(promptCase("ASK NOT!")).toBe("Ask not!");
    expect(promptCase("HELLO THERE. HOW ARE YOU?")).toBe("Hello there. How are you?");
    expect(promptCase("ÉCOUTEZ BIEN")).toBe("Écoutez bien");
    // An acronym alone, one capital word, or any lowercase letter: left as it is.
    expect(promptCase("NASA.")).toBe("NASA.");
    expect(promptCase("I AM")).toBe("I AM");
    expect(promptCase("The FBI and NASA.")).toBe("The FBI and NASA.");
    expect(promptCase("B. C. D.")).toBe("B. C. D.");
    const us = [u(0, "And so my fellow Americans."), u(0, "ASK NOT!"), u(0, "What your country can do for you!")];
    expect(previousText(us, 0)).toBe("And so my fellow Americans. Ask not! What your country can do for you!");
  });
});
