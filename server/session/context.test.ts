import { describe, expect, test } from "bun:test";
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { applyDefaults } from "../options/defaults.ts";
import { previousText, sessionVocabulary } from "./context.ts";

const u = (channel: number, text: string): Utterance => ({ start: 0, end: 1, confidence: 1, channel, words: [], text, language: "en" });

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
});
