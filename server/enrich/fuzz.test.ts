/** Arbitrary recognizer output through every text add-on: no throw, a valid utterance, words that spell the text. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { check } from "../../generated/validators.ts";
import { EnrichmentStage, messageBuilder } from "./pipeline.ts";

const word = fc.oneof(
  fc.constantFrom("one", "two", "oh", "twenty", "hundred", "and", "point", "dollars", "cents", "percent", "at", "dot", "com", "Sarah", "Paris", "I", "first", "o'clock", "pm", "-", ",", ".", "?", "4111", "555-0193", "a@b.co", "[X]", "$", "€", "…", "«", "»"),
  fc.string({ minLength: 1, maxLength: 8 }).filter((s) => s.trim() === s && s !== ""),
);

const utterance = fc.array(word, { minLength: 1, maxLength: 25 }).map((ws): Utterance => ({
  start: 0,
  end: ws.length,
  confidence: 0.8,
  channel: 0,
  language: "en",
  text: ws.join(" "),
  words: ws.map((w, i) => ({ word: w, start: i, end: i + 0.9, confidence: 0.8 })),
}));

describe("text add-ons on arbitrary input", () => {
  const stage = new EnrichmentStage(
    {
      numerals: true,
      punctuation: false,
      pii: { entities: "all", return_entities: true },
      named_entity_recognition: { entities: "all" },
      realtime_processing: { sentiment_analysis: true, custom_spelling: true, custom_spelling_config: { spelling_dictionary: { X: ["one two", "$"] } } },
    },
    messageBuilder("6f3c9b8e-4c1e-4d8f-9a51-2f0e7d1c3b2a"),
  );

  test("never throws; the utterance stays valid and its words spell its text", () => {
    fc.assert(
      fc.property(utterance, fc.boolean(), (u, final) => {
        const out = stage.process("0:0", u, final);
        expect(check("Utterance", out.utterance).ok).toBe(true);
        expect(out.utterance.words.map((w) => w.word).join(" ").replace(/\s+/g, " ")).toBe(out.utterance.text.replace(/\s+/g, " ").trim());
        for (const m of out.messages) expect(check(m.type === "pii" ? "PiiMessage" : m.type === "named_entity_recognition" ? "NamedEntityRecognitionMessage" : "SentimentAnalysisMessage", m).ok).toBe(true);
      }),
      { numRuns: 80, seed: 7 },
    );
  }, 60_000);
});
