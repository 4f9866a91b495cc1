import { describe, expect, test } from "bun:test";
import { detectEntities } from "./detect.ts";
import { tagEntities, nerSettings } from "./ner.ts";
import { piiSettings, redact } from "./pii.ts";
import { EntityRegistry } from "./registry.ts";
import { EntityNameSchema } from "../../../generated/openapi/schemas.gen.ts";
import { check } from "../../../generated/validators.ts";
import { ENTITY_TYPES, PRESETS, resolveEntityTypes } from "./types.ts";

const state = (text: string) => ({ text, words: text.split(/\s+/).map((w, i) => ({ word: w, start: i, end: i + 0.5, confidence: 0.9 })) });
const SPOKEN = "My name is Sarah Connor and my number is two zero two, five five five, zero one nine three. My card number is four one one one one one one one one one one one one one one one.";

describe("detection in spoken text", () => {
  test("spoken digits, cards with Luhn, names: spans of the original words", () => {
    const found = detectEntities(SPOKEN, "en").map((d) => [d.label, d.text]);
    expect(found).toEqual([
      ["name", "Sarah Connor"],
      ["phone_number", "two zero two, five five five, zero one nine three"],
      ["credit_card_number", "four one one one one one one one one one one one one one one one"],
    ]);
  });

  test("numbers as a recognizer writes dictated digits", () => {
    expect(detectEntities("my phone number is 2, 0, 2, 5, 5, 5, 0, 1, 9, 3.", "en").map((d) => [d.label, d.text])).toEqual([["phone_number", "2, 0, 2, 5, 5, 5, 0, 1, 9, 3"]]);
    expect(detectEntities("call 202, 555, 0193 now", "en").map((d) => [d.label, d.text])).toEqual([["phone_number", "202, 555, 0193"]]);
    // Dictated with uneven pauses: groups of one or two digits.
    expect(detectEntities("My phone number is 41, 5, 5, 5, 5, 0, 1, 3, 2.", "en").map((d) => [d.label, d.text])).toEqual([["phone_number", "41, 5, 5, 5, 5, 0, 1, 3, 2"]]);
    // A count is not a phone number.
    expect(detectEntities("I counted 1, 2, 3, 4, 5, 6, 7, 8 sheep", "en").filter((d) => d.label === "phone_number")).toEqual([]);
  });

  test("a card number failing the Luhn check is not a card", () => {
    expect(detectEntities("card 4111 1111 1111 1112", "en").some((d) => d.label === "credit_card_number")).toBe(false);
    expect(detectEntities("card 4111 1111 1111 1111", "en").map((d) => d.label)).toContain("credit_card_number");
  });

  test("spoken and written addresses, IBAN, places, organizations, dates, money", () => {
    const found = detectEntities("Email me at sarah dot connor at example dot com, my IBAN is GB82 WEST 1234 5698 7654 32. I live in Boston, Massachusetts, work for Acme Corp since March 3rd at 5pm and paid twenty dollars.", "en");
    expect(found.map((d) => [d.label, d.text])).toEqual([
      ["email_address", "sarah dot connor at example dot com"],
      ["iban", "GB82 WEST 1234 5698 7654 32"],
      ["location_city", "Boston"],
      ["location_state", "Massachusetts"],
      ["organization", "Acme Corp"],
      ["date", "March 3rd"],
      ["time", "5pm"],
      ["money", "twenty dollars"],
    ]);
  });
});

describe("entity selection", () => {
  test("presets, lists and enable/disable", () => {
    expect([...resolveEntityTypes("pci", "pii")]).toEqual(["credit_card_number"]);
    expect([...resolveEntityTypes(["name", "email_address"], "pii")]).toEqual(["name", "email_address"]);
    const toggled = resolveEntityTypes({ disable: ["location"] }, "pii");
    expect(toggled.has("name") && !toggled.has("location_city")).toBe(true);
    expect([...resolveEntityTypes({ enable: ["date"], disable: ["time"] }, "pii")]).toEqual(["date"]);
    expect([...resolveEntityTypes(undefined, "contact")]).toContain("phone_number");
  });

  test("the contract's EntityName enum is exactly the presets and types served", () => {
    expect(new Set<string>(EntityNameSchema.enum)).toEqual(new Set<string>([...Object.keys(PRESETS), ...ENTITY_TYPES]));
  });

  test("an unknown name is refused by the init schema", () => {
    expect(check("LiveSessionInit", { pii: { entities: ["pii", "shoe_size"] } }).ok).toBe(false);
    expect(check("LiveSessionInit", { pii: { entities: { enable: ["phi"], disable: ["ssn"] } }, named_entity_recognition: { entities: "ner" } }).ok).toBe(true);
  });
});

describe("pii", () => {
  test("every trace of the data leaves text and words; ids stable per person per type", () => {
    const registry = new EntityRegistry();
    const settings = piiSettings({ entities: "pii" });
    const r = redact(state(SPOKEN), "en", settings, registry, true);
    expect(r.state.text).toBe("My name is [NAME_1] and my number is [PHONE_NUMBER_1]. My card number is [CREDIT_CARD_NUMBER_1].");
    expect(r.state.words.map((w) => w.word).join(" ")).toBe(r.state.text);
    for (const secret of ["Sarah", "Connor", "five", "four one"]) expect(JSON.stringify(r)).not.toContain(secret);
    expect(r.entities).toEqual([
      { label: "name", id: 1, action: "mask", score: 0.7, start: 11, end: 19 },
      { label: "phone_number", id: 1, action: "mask", score: 0.9, start: 37, end: 53 },
      { label: "credit_card_number", id: 1, action: "mask", score: 0.99, start: 73, end: 95 },
    ]);
    for (const e of r.entities) expect(r.state.text.slice(e.start!, e.end!)).toMatch(/^\[[A-Z_]+_\d\]$/);
    const again = redact(state("Sarah called John."), "en", settings, registry, true);
    expect(again.state.text).toBe("[NAME_1] called [NAME_2].");
  });

  test("return_entities adds the text heard; threshold drops tagger guesses", () => {
    const registry = new EntityRegistry();
    const withText = redact(state("I am Sarah Connor."), "en", piiSettings({ entities: ["name"], return_entities: true }), registry, true);
    expect(withText.entities[0]).toMatchObject({ label: "name", text: "Sarah Connor" });
    const strict = redact(state("I am Sarah Connor, card 4111 1111 1111 1111."), "en", piiSettings({ threshold: 0.8 }), registry, true);
    expect(strict.state.text).toBe("I am Sarah Connor, card [CREDIT_CARD_NUMBER_1].");
  });

  test("partials are masked without using up numbers; with numeric types, every number of a partial is masked", () => {
    const registry = new EntityRegistry();
    expect(redact(state("call John"), "en", piiSettings({}), registry, false).state.text).toBe("call [NAME]");
    expect(redact(state("call Mary"), "en", piiSettings({}), registry, true).state.text).toBe("call [NAME_1]");
    expect(redact(state("Mary, my card is four one one one and 55 12"), "en", piiSettings({}), registry, false).state.text).toBe("[NAME_1], my card is [NUMBER]");
    expect(redact(state("one"), "en", piiSettings({}), registry, false).state.text).toBe("[NUMBER]");
    expect(redact(state("call twenty-one, then someone"), "en", piiSettings({}), registry, false).state.text).toBe("call [NUMBER], then someone");
    expect(redact(state("my card is four one one one"), "en", piiSettings({ entities: "name" }), registry, false).state.text).toBe("my card is four one one one");
  });
});

describe("named entities", () => {
  test("tagged with offsets and entity_type; masked text is not tagged", () => {
    const registry = new EntityRegistry();
    const text = "Alice met [NAME_1] in Paris on Monday.";
    const found = tagEntities(text, "en", nerSettings(undefined, "ner"), registry);
    expect(found.map((e) => [e.label, e.entity_type, e.id, e.action, e.text, text.slice(e.start!, e.end!)])).toEqual([
      ["name", "name", 1, "ner", "Alice", "Alice"],
      ["location_city", "location_city", 1, "ner", "Paris", "Paris"],
      ["date", "date", 1, "ner", "Monday", "Monday"],
    ]);
    expect(tagEntities("Alice again.", "en", nerSettings({ entities: "name" }, "ner"), registry)[0]?.id).toBe(1);
  });

  test("the registry keeps a person's number across shorter and longer mentions", () => {
    const r = new EntityRegistry();
    expect([r.idOf("name", "Sarah Connor"), r.idOf("name", "John"), r.idOf("name", "Sarah"), r.idOf("name", "John Doe"), r.idOf("name", "Sarah Jones")]).toEqual([1, 2, 1, 2, 3]);
    expect([r.idOf("phone_number", "202-555-0193"), r.idOf("phone_number", "202 555 0193"), r.idOf("name", "x")]).toEqual([1, 1, 4]);
    expect(EntityRegistry.from(r.toJSON()).idOf("name", "Sarah")).toBe(1);
  });
});

