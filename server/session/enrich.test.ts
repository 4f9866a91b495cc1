/** The enrichment stage runs enabled add-ons in order, lets them replace utterances and add messages, and isolates failures. */
import { describe, expect, test } from "bun:test";
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { createLogger } from "../log.ts";
import { EnrichmentPipeline, type Enricher } from "./enrich.ts";
import { MessageFactory } from "./messages.ts";

const log = createLogger({}, { level: "error" });
const quiet = { ...log, error: () => {} };
const messages = new MessageFactory("s1", () => Date.parse("2026-01-01T00:00:00Z"));
const utterance: Utterance = { start: 0, end: 1, confidence: 0.9, channel: 0, words: [], text: "hello world", language: "en" };
const ref = { id: "0:0", channel: 0 };

describe("enrichment pipeline", () => {
  test("empty: inactive, the utterance is delivered as recognized", async () => {
    const p = new EnrichmentPipeline([], log);
    expect(p.active).toBe(false);
    expect(p.wantsAudio).toBe(false);
    expect(await p.final(utterance, ref)).toEqual({ utterance, messages: [] });
    expect(await p.finish()).toEqual([]);
  });

  test("enrichers run in order: each sees the previous one's utterance; messages accumulate", async () => {
    const seen: string[] = [];
    const upper: Enricher = {
      name: "upper",
      onFinal: (u) => {
        seen.push(`upper:${u.text}`);
        return { utterance: { ...u, text: u.text.toUpperCase() } };
      },
    };
    const tag: Enricher = {
      name: "tag",
      onFinal: async (u, r) => {
        seen.push(`tag:${u.text}`);
        return { messages: [messages.error(`${r.id} ${u.text}`, "note")] };
      },
      finish: () => [messages.error("done", "note")],
    };
    const p = new EnrichmentPipeline([upper, tag], log);
    expect(p.active).toBe(true);
    const out = await p.final(utterance, ref);
    expect(seen).toEqual(["upper:hello world", "tag:HELLO WORLD"]);
    expect(out.utterance.text).toBe("HELLO WORLD");
    expect(out.messages).toEqual([messages.error("0:0 HELLO WORLD", "note")]);
    expect((await p.finish()).length).toBe(1);
    expect(utterance.text).toBe("hello world");
  });

  test("a failing enricher leaves the utterance as it was and the others still run", async () => {
    const broken: Enricher = { name: "broken", onPartial: () => Promise.reject(new Error("boom")), onAudio: () => { throw new Error("boom"); } };
    const count: Enricher = { name: "count", onPartial: (u) => ({ utterance: { ...u, text: `${u.text}!` } }) };
    const p = new EnrichmentPipeline([broken, count], quiet);
    expect((await p.partial(utterance, ref)).utterance.text).toBe("hello world!");
    expect(p.wantsAudio).toBe(true);
    expect(() => p.audio(0, new Float32Array(16), 0)).not.toThrow();
  });
});
