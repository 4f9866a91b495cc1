/**
 * The text add-ons through the WebSocket, on real recognition: synthesized speech (espeak-ng)
 * transcribed by whisper-tiny.en serving trantoria-1 (MODELS_DIR, else ./models, as
 * scripts/bootstrap.sh installs it). A call with a name, a city and a phone number read digit by
 * digit → `pii` messages with the right labels and no trace of the data in any text the client or
 * the stored session holds; entities with stable ids; return_entities; numerals; spelling; sentiment.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { InProcessCoordinator } from "../../workers/coordinator/in-process.ts";
import { englishModelsDir } from "../helpers/models.ts";
import { startTestService, type TestService } from "../helpers/server.ts";
import { spoken } from "../helpers/speech.ts";
import { chunks, contractErrors, createSession, RawClient, toPcm16 } from "./helpers.ts";
import { join16k } from "../helpers/addon-models.ts";

const MODELS = englishModelsDir();
let coordinator: InProcessCoordinator;
let svc: TestService;
beforeAll(async () => {
  coordinator = await InProcessCoordinator.create({ modelsDir: MODELS, threads: 2, queueLimit: 50 });
  svc = await startTestService({ modelsDir: MODELS, coordinator: { capabilities: () => coordinator.capabilities(), transcribe: (j, s) => coordinator.transcribe(j, s), close: async () => {} } });
}, 120_000);
afterAll(() => svc.stop());

const SENTENCES = {
  who: "My name is John Smith and I live in Boston.",
  phone: "My phone number is four one five, five five five, zero one three two.",
  love: "I really love this, thank you so much.",
  cost: "It costs twenty five dollars.",
};

/** Sentences spoken one after another with 1.5 s of silence between them. */
function call(sentences: string[]): Float32Array {
  return join16k(1.5, ...sentences.flatMap((s) => [spoken(s, "en-us", s === SENTENCES.phone ? 100 : 120), 1.5]));
}

async function session(init: Record<string, unknown>, samples: Float32Array) {
  const { id, url } = await createSession(svc, { model: "trantoria-1", language_config: { languages: ["en"] }, ...init });
  const client = new RawClient(url);
  await client.opened;
  for (const f of chunks(toPcm16(samples), 6400)) client.send(f);
  client.stop();
  expect((await client.closed).code).toBe(1000);
  for (const m of client.messages) expect(contractErrors(m)).toEqual([]);
  return { client, stored: (await svc.running.deps.store.getSessionById(id))! };
}

/** Final texts without a closing period (the recognizer puts one or not). */
/** The finals' texts as sent (case and inner punctuation kept), a trailing full stop dropped. */
const finalsOf = (client: RawClient) => client.finals().map((m) => (m.data.utterance.text as string).replace(/\.$/, ""));
/** Every transcript string inside a value (texts, words, JSON-string results), ids and timestamps aside. */
const strings = (v: unknown): string[] =>
  typeof v === "string" ? [v] : v && typeof v === "object" ? Object.entries(v).flatMap(([k, x]) => (k === "session_id" || k === "created_at" || k === "utterance_id" || k === "id" ? [] : strings(x))) : [];
const DIGIT_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
/** The digits a text spells, whether written as digits or as digit words. */
const digitsOf = (text: string) => text.toLowerCase().replace(/[a-z]+/g, (w) => (DIGIT_WORDS.includes(w) ? String(DIGIT_WORDS.indexOf(w)) : "")).replace(/\D/g, "");
const ofType = (client: RawClient, type: string) => client.messages.filter((m) => m.type === type);

describe("text add-ons over the WebSocket, on whisper-tiny.en", () => {
  test("pii: a name, a city and a phone number read digit by digit are masked in every text; sentiment per utterance; numerals", async () => {
    const { client, stored } = await session(
      { pii: { entities: "pii" }, numerals: true, realtime_processing: { sentiment_analysis: true } },
      call([SENTENCES.who, SENTENCES.phone, SENTENCES.love, SENTENCES.cost]),
    );
    const finals = finalsOf(client);
    expect(finals.slice(0, 3)).toEqual(["My name is [NAME_1] and I live in [LOCATION_CITY_1]", "My phone number is [PHONE_NUMBER_1]", "I really love this. Thank you so much"]);
    // numerals: whatever the recognizer wrote as words is digits now.
    // (Its case depends on the CPU's encoder: after "Thank you so much" without a full stop, the
    // signed-int8 encoder's tiny.en goes on in lower case.)
    expect(finals[3]).toMatch(/^it costs? \$?25\b/i);
    expect(finals.join(" ")).not.toMatch(/\b(one|two|three|four|five|six|seven|eight|nine|zero|twenty)\b/i);
    const pii = ofType(client, "pii");
    expect(pii.map((m) => m.data.entities.map((e: { label: string; id: number }) => `${e.label}_${e.id}`))).toEqual([["name_1", "location_city_1"], ["phone_number_1"]]);
    for (const m of pii) for (const e of m.data.entities) expect(e.text).toBeUndefined();
    const everything = strings([client.messages, stored.result]).join("\n");
    for (const secret of ["John", "Smith", "Boston", "415", "555", "0132", "5, 5"]) expect(everything).not.toContain(secret);
    const sentiments = ofType(client, "sentiment_analysis");
    expect(sentiments.map((m) => m.data.results[0].sentiment)).toEqual(["neutral", "neutral", "positive", "neutral"]);
    expect(JSON.parse((stored.result as { sentiment_analysis: { results: string } }).sentiment_analysis.results)).toHaveLength(4);
  }, 180_000);

  test("named entities with stable ids, return_entities, custom spelling", async () => {
    const { client, stored } = await session(
      {
        pii: { entities: ["phone_number"], return_entities: true },
        named_entity_recognition: { entities: "ner" },
        realtime_processing: { custom_spelling: true, custom_spelling_config: { spelling_dictionary: { "Bean Town": ["Boston"] } } },
      },
      call([SENTENCES.who, SENTENCES.phone, "John Smith called again."]),
    );
    expect(finalsOf(client)).toEqual(["My name is John Smith and I live in Bean Town", "My phone number is [PHONE_NUMBER_1]", "John Smith called again"]);
    const pii = ofType(client, "pii");
    expect(pii.map((m) => m.data.entities)).toEqual([[{ label: "phone_number", id: 1, action: "mask", score: 0.9, text: expect.any(String), start: 19, end: 35 }]]);
    // The text heard, as the recognizer wrote it (digits or digit words).
    expect(digitsOf(pii[0]!.data.entities[0].text)).toBe("4155550132");
    const ner = ofType(client, "named_entity_recognition").map((m) => m.data.results.map((e: { label: string; id: number; text: string }) => [e.label, e.id, e.text]));
    expect(ner[0]).toContainEqual(["name", 1, "John Smith"]);
    expect(ner[2]).toContainEqual(["name", 1, "John Smith"]);
    const result = stored.result as { named_entity_recognition: { entity: string; results: unknown[] } };
    expect(result.named_entity_recognition.results.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(result.named_entity_recognition.entity)).toEqual(result.named_entity_recognition.results);
  }, 180_000);

  test("an unknown entity type is refused at init", async () => {
    const res = await fetch(`${svc.running.url}/v2/live`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-key": svc.key },
      body: JSON.stringify({ model: "trantoria-1", language_config: { languages: ["en"] }, pii: { entities: ["pci", "shoe_size"] } }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { validation_errors: string[] }).validation_errors).toEqual([expect.stringMatching(/^pii\.entities/)]);
  });
});
