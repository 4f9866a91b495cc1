/**
 * The stage as a session runs it, and its messages checked against our contracts and the cloud
 * variant's published schemas.
 */
import { describe, expect, test } from "bun:test";
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { check } from "../../generated/validators.ts";
import { againstCloudAsyncapi, againstCloudOpenapi } from "../../test/helpers/cloud.ts";
import { EnrichmentStage, messageBuilder } from "./pipeline.ts";

const SESSION = "6f3c9b8e-4c1e-4d8f-9a51-2f0e7d1c3b2a";
const head = messageBuilder(SESSION, () => Date.parse("2025-01-01T10:00:00.000Z"));
const utt = (text: string, start = 1, channel = 0): Utterance => ({
  start,
  end: start + 4,
  confidence: 0.9,
  channel,
  language: "en",
  text,
  words: text.split(" ").map((w, i) => ({ word: w, start: start + i * 0.3, end: start + i * 0.3 + 0.25, confidence: 0.9 })),
});
const SPOKEN = "My name is Sarah Connor and my number is two zero two five five five zero one nine three. My card number is four one one one one one one one one one one one one one one one.";

describe("enrichment stage", () => {
  test("nothing asked: utterances pass through untouched", () => {
    const stage = new EnrichmentStage({}, head);
    const u = utt(SPOKEN);
    expect(stage.active).toBe(false);
    expect(stage.process("0:0", u, true)).toEqual({ utterance: u, messages: [] });
  });

  test("pii + named entities + sentiment + numerals: redacted everywhere, messages valid for both contracts", () => {
    const stage = new EnrichmentStage({ numerals: true, pii: { entities: { enable: ["pii"], disable: ["location"] } }, named_entity_recognition: { entities: "ner" }, realtime_processing: { sentiment_analysis: true } }, head);
    const out = stage.process("0:0", utt(`${SPOKEN} I love Paris.`), true);
    expect(out.utterance.text).toBe("My name is [NAME_1] and my number is [PHONE_NUMBER_1]. My card number is [CREDIT_CARD_NUMBER_1]. I love Paris.");
    expect(out.messages.map((m) => m.type)).toEqual(["pii", "named_entity_recognition", "sentiment_analysis"]);
    const all = JSON.stringify(out);
    for (const secret of ["Sarah", "Connor", "2025550193", "4111", "five", "four one"]) expect(all).not.toContain(secret);
    const [pii, ner, sentiment] = out.messages;
    expect(pii!.type === "pii" && pii.data.entities.map((e) => e.label)).toEqual(["name", "phone_number", "credit_card_number"]);
    expect(ner!.type === "named_entity_recognition" && ner.data!.results.map((e) => [e.label, e.text])).toEqual([["location_city", "Paris"]]);
    expect(sentiment!.type === "sentiment_analysis" && sentiment.data!.results[0]).toMatchObject({ sentiment: "positive", channel: 0, start: 1, end: 5 });

    expect(check("PiiMessage", pii).ok).toBe(true);
    expect(againstCloudOpenapi("UtteranceDTO", (pii as { data: { utterance: unknown } }).data.utterance)).toEqual([]);
    expect(check("NamedEntityRecognitionMessage", ner).ok).toBe(true);
    expect(againstCloudAsyncapi("NamedEntityRecognitionMessage", ner)).toEqual([]);
    expect(againstCloudOpenapi("NamedEntityRecognitionMessage", ner)).toEqual([]);
    expect(check("SentimentAnalysisMessage", sentiment).ok).toBe(true);
    expect(againstCloudAsyncapi("SentimentAnalysisMessage", sentiment)).toEqual([]);
    expect(againstCloudOpenapi("SentimentAnalysisMessage", sentiment)).toEqual([]);
    for (const [ours, cloud] of [["CallbackNamedEntityRecognition", "CallbackLiveNamedEntityRecognitionMessage"], ["CallbackSentimentAnalysis", "CallbackLiveSentimentAnalysisMessage"]] as const) {
      const m = ours === "CallbackSentimentAnalysis" ? sentiment! : ner!;
      const body = { id: SESSION, event: `live.${m.type}`, payload: m };
      expect(check(ours, body).ok).toBe(true);
      expect(againstCloudOpenapi(cloud, body)).toEqual([]);
    }
    const members = stage.resultMembers();
    const result = { metadata: { audio_duration: 5, number_of_distinct_channels: 1, billing_time: 5, transcription_time: 1 }, transcription: { full_transcript: out.utterance.text, languages: ["en"], utterances: [out.utterance] }, ...members };
    expect(check("TranscriptionResult", result).ok).toBe(true);
    const final = { session_id: SESSION, created_at: "2025-01-01T10:00:00.000Z", type: "post_final_transcript", data: result };
    expect(check("PostFinalTranscriptMessage", final).ok).toBe(true);
    expect(againstCloudOpenapi("PostFinalTranscriptMessage", final)).toEqual([]);
    expect(againstCloudAsyncapi("PostFinalTranscriptMessage", final)).toEqual([]);
    expect(members.sentiment_analysis?.results).toContain("positive");
  });

  test("partials are rewritten and masked but produce no messages", () => {
    const stage = new EnrichmentStage({ numerals: true, pii: {}, realtime_processing: { sentiment_analysis: true } }, head);
    const out = stage.process("0:0", utt("call Sarah on two zero two five five five zero one nine three"), false);
    expect(out.utterance.text).toBe("call [NAME] on [PHONE_NUMBER]");
    expect(out.messages).toEqual([]);
  });

  test("numerals, spelling, vocabulary and punctuation off together", () => {
    const stage = new EnrichmentStage(
      {
        numerals: true,
        punctuation: false,
        realtime_processing: {
          custom_spelling: true,
          custom_spelling_config: { spelling_dictionary: { SQL: ["sequel"] } },
          custom_vocabulary: true,
          custom_vocabulary_config: { vocabulary: [{ value: "Gladia", pronunciations: ["gladiator"] }] },
        },
      },
      head,
    );
    const out = stage.process("0:0", utt("Sequel costs twenty dollars. Gladiator, call me at three thirty pm!"), true);
    expect(out.utterance.text).toBe("SQL costs $20 Gladia call me at 3:30 pm");
    expect(out.utterance.words.map((w) => w.word)).toEqual(out.utterance.text.split(" "));
    expect(check("Utterance", out.utterance).ok).toBe(true);
    expect(Object.keys(stage.seconds)).toEqual(["numerals", "punctuation", "custom_spelling", "custom_vocabulary"]);
  });

  test("sentiment per utterance: positive, negative, neutral, mixed", () => {
    const stage = new EnrichmentStage({ realtime_processing: { sentiment_analysis: true } }, head);
    const valence = (text: string) => {
      const m = stage.process("0:0", utt(text), true).messages[0];
      return m?.type === "sentiment_analysis" ? m.data?.results[0]?.sentiment : undefined;
    };
    expect([valence("I love this, it is great."), valence("This is terrible and I hate it."), valence("The meeting is on Tuesday."), valence("I love the design but the battery is awful.")]).toEqual(["positive", "negative", "neutral", "mixed"]);
  });

  test("a failing add-on: redaction fails closed, entities and sentiment report the error", () => {
    const errors: string[] = [];
    const stage = new EnrichmentStage({ pii: {}, named_entity_recognition: {}, realtime_processing: { sentiment_analysis: true } }, head, undefined, (name) => errors.push(name));
    for (const e of stage.enrichers) {
      e.apply = () => {
        throw new Error("boom");
      };
    }
    const out = stage.process("0:3", utt(SPOKEN), true);
    expect(out.utterance.text).toBe("[REDACTED]");
    expect(out.utterance.words).toEqual([{ word: "[REDACTED]", start: 1, end: expect.any(Number), confidence: 0.9 }]);
    expect(out.messages.map((m) => [m.type, "error" in m ? m.error : undefined, m.data])).toEqual([
      ["named_entity_recognition", { message: "named_entity_recognition failed: boom" }, null],
      ["sentiment_analysis", { message: "sentiment_analysis failed: boom" }, null],
    ]);
    for (const m of out.messages) {
      const name = m.type === "sentiment_analysis" ? "SentimentAnalysisMessage" : "NamedEntityRecognitionMessage";
      expect(check(name, m).ok).toBe(true);
      // The cloud's OpenAPI document allows `data: null` on failure; its AsyncAPI document does not.
      expect(againstCloudOpenapi(name, m)).toEqual([]);
    }
    expect(errors).toEqual(["pii", "named_entity_recognition", "sentiment_analysis"]);
  });
});
