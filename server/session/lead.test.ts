import { describe, expect, test } from "bun:test";
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { LeadAudio } from "./lead.ts";

const RATE = 16000;
const tone = (s: number, v: number) => new Float32Array(Math.round(s * RATE)).fill(v);
const u = (channel: number, text: string, start: number, end: number, language = "en"): Utterance => ({ start, end, confidence: 1, channel, words: [], text, language });

describe("the lead of a short final", () => {
  test("the channel's latest recognized utterances in order, silences between them kept up to 1.5 s, the text before them as the prompt", () => {
    const leads = new LeadAudio();
    // recognized out of order: the second before the first
    leads.heard(0, 3, 4, tone(1, 0.2), "Two.");
    leads.heard(0, 1, 2, tone(1, 0.1), "One.");
    leads.heard(1, 3, 4, tone(1, 0.3), "Other channel.");
    const heard = [u(0, "Before.", 0, 0.5), u(0, "One.", 1, 2), u(1, "Other channel.", 3, 4), u(0, "Two.", 3, 4)];
    const lead = leads.leadFor(0, 7, heard, false)!;
    expect(lead.text).toBe("One. Two.");
    expect(lead.previousText).toBe("Before.");
    // One (1 s), its 1 s gap to Two, Two (1 s), 3 s to the utterance shortened to 1.5 s
    expect(lead.audio.length).toBe(Math.round(4.5 * RATE));
    expect(lead.audio[0]).toBeCloseTo(0.1);
    expect(lead.audio[Math.round(1.5 * RATE)]).toBe(0);
    expect(lead.audio[Math.round(2.5 * RATE)]).toBeCloseTo(0.2);
    expect(lead.audio[lead.audio.length - 1]).toBe(0);
    expect(lead.segments).toEqual([
      { start: 0, end: 1, text: "One." },
      { start: 2, end: 3, text: "Two." },
    ]);
  });

  test("none when the final before is not recognized yet, or was no speech; it starts at most 8 s before the utterance", () => {
    const leads = new LeadAudio();
    leads.heard(0, 0, 1, tone(1, 0.1), "Long ago.");
    leads.heard(0, 5, 6, tone(1, 0.1), "Recent.");
    expect(leads.leadFor(0, 9, [], true)).toBeUndefined();
    expect(leads.leadFor(0, 9, [], false)?.text).toBe("Recent.");
    expect(leads.leadFor(0, 7, [], false)?.text).toBe("Long ago. Recent.");
    leads.heard(0, 6.5, 6.8, tone(0.3, 0.1), "");
    expect(leads.leadFor(0, 7, [], false)).toBeUndefined();
    expect(leads.leadFor(1, 7, [], false)).toBeUndefined();
  });

  test("one language: the lead goes back to an utterance recognized in another than the latest, its prompt is in the lead's language", () => {
    const leads = new LeadAudio();
    leads.heard(0, 0, 1, tone(1, 0.1), "スピックス。", "ja");
    leads.heard(0, 2, 3, tone(1, 0.2), "Come here.", "en");
    leads.heard(0, 4, 5, tone(1, 0.3), "Three.", "en");
    const heard = [u(0, "Before.", -2, -1), u(0, "スピックス。", 0, 1, "ja"), u(0, "Come here.", 2, 3), u(0, "Three.", 4, 5)];
    const lead = leads.leadFor(0, 6, heard, false)!;
    expect(lead.text).toBe("Come here. Three.");
    expect(lead.language).toBe("en");
    expect(lead.previousText).toBe("");
    expect(leads.leadFor(0, 3.5, heard, false)).toMatchObject({ text: "Come here.", language: "en", previousText: "" });
    expect(leads.leadFor(0, 1.5, heard, false)).toMatchObject({ text: "スピックス。", language: "ja", previousText: "" });
  });
});

describe("overlapping utterances", () => {
  test("audio an utterance shares with the next (their padding) is kept once, by the later one", () => {
    const leads = new LeadAudio();
    leads.heard(0, 1, 2, tone(1, 0.1), "One.");
    leads.heard(0, 1.8, 3, tone(1.2, 0.2), "Two.");
    const lead = leads.leadFor(0, 2.9, [], false)!;
    expect(lead.text).toBe("One. Two.");
    // One up to where Two starts, Two up to where the utterance starts, no silence between them
    expect(lead.audio.length).toBe(Math.round(0.8 * RATE) + Math.round(1.1 * RATE));
    expect(lead.audio[Math.round(0.8 * RATE) - 1]).toBeCloseTo(0.1);
    expect(lead.audio[Math.round(0.8 * RATE)]).toBeCloseTo(0.2);
  });
});
