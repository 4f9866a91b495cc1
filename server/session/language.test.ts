import { describe, expect, test } from "bun:test";
import { LanguageEvidence } from "./language.ts";

const probs = (p: Record<string, number>) => Object.entries(p).map(([language, probability]) => ({ language, probability })).sort((a, b) => b.probability - a.probability);

describe("LanguageEvidence", () => {
  test("a short reply heard as another language does not settle the session; longer speech does", () => {
    const e = new LanguageEvidence();
    e.record("0:0", probs({ de: 0.6, en: 0.35, nl: 0.05 }), 0.4); // "Nine." heard as "Nein."
    expect(e.settled()).toBeUndefined();
    expect(e.prior()!.de).toBe(0);
    e.record("0:1", probs({ en: 0.97, de: 0.02, nl: 0.01 }), 3);
    expect(e.prior()!.en).toBe(0);
    expect(e.settled()).toBeUndefined(); // 0.97 of one utterance is not yet 0.99 of the evidence
    e.record("0:2", probs({ en: 0.95, de: 0.03, nl: 0.02 }), 2.5);
    expect(e.settled()).toBe("en");
    e.record("0:3", probs({ de: 0.999, en: 0.001 }), 10); // settled: it stays
    expect(e.settled()).toBe("en");
  });

  test("an utterance's later decode replaces its earlier one; a forgotten one is no witness", () => {
    const e = new LanguageEvidence();
    e.record("0:0", probs({ fr: 0.9, en: 0.1 }), 2);
    e.record("0:0", probs({ en: 0.9, fr: 0.1 }), 2);
    expect(e.prior()!.en).toBe(0);
    e.forget("0:0");
    expect(e.prior()).toBeUndefined();
    e.record("0:1", undefined, 2);
    expect(e.prior()).toBeUndefined();
  });

  test("a decode's prior leaves out its own utterance's partials (they heard part of the same audio), not its final-settings decode", () => {
    const e = new LanguageEvidence();
    e.record("0:0", probs({ en: 0.9, la: 0.1 }), 2);
    e.record("0:1", probs({ la: 0.6, en: 0.4 }), 2, true); // a partial of the next utterance
    expect(e.prior()!.la).toBeLessThan(0);
    expect(e.prior("0:1")).toEqual({ en: 0, la: Math.log(0.1) - Math.log(0.9) });
    expect(e.prior("0:0")).toEqual(e.prior()!); // its own final-settings decode stays
    const alone = new LanguageEvidence();
    alone.record("0:0", probs({ la: 0.6, en: 0.4 }), 2, true);
    expect(alone.prior("0:0")).toBeUndefined();
    // its final-settings decode (here one that chose English by decoding) stands for it, for its own later decodes too
    alone.record("0:0", probs({ en: 0.999, la: 0.001 }), 2);
    alone.record("0:0", probs({ la: 0.7, en: 0.3 }), 2.5, true);
    expect(alone.prior("0:0")!.en).toBe(0);
    expect(alone.prior()!.en).toBe(0);
    // a partial that heard nothing forgets only itself
    alone.forget("0:0", true);
    expect(alone.prior("0:0")!.en).toBe(0);
    // one whose final-settings decode heard nothing is no witness at all
    alone.record("0:0", probs({ la: 0.7, en: 0.3 }), 2.5, true);
    alone.forget("0:0");
    expect(alone.prior()).toBeUndefined();
  });

  test("a final-settings decode of part of an utterance (after a cut, its unread ending) or of more of it joins the pieces before it; one of the same stretch replaces", () => {
    const e = new LanguageEvidence();
    e.record("0:0", probs({ en: 0.99, la: 0.01 }), 12); // the buffer before the cut: speech
    e.record("0:0", probs({ la: 0.6, en: 0.2, it: 0.2 }), 4, false, 11.5); // the buffer after it: digits only
    expect(e.prior("0:0")!.en).toBe(0);
    expect(e.prior("0:0")!.la).toBeLessThan(-3);
    // A dictation: the first pause's decode heard English, a longer one turned Latin on the digits.
    const d = new LanguageEvidence();
    d.record("0:0", probs({ en: 0.744, nn: 0.055, cy: 0.051 }), 6.86);
    d.record("0:0", probs({ la: 0.447, en: 0.189, nn: 0.1 }), 10.38);
    expect(d.prior("0:0")!.en).toBe(0);
    expect(d.prior("0:0")!.la).toBeLessThan(-1.5);
    // a decode of the same stretch again (here one that chose Latin by decoding in both) replaces it
    d.record("0:0", probs({ la: 0.999, en: 0.001 }), 10.38);
    expect(d.prior("0:0")!.la).toBe(0);
  });

  test("a piece that heard no speech is forgotten, not the utterance's other pieces", () => {
    const e = new LanguageEvidence();
    e.record("0:0", probs({ en: 0.9, fr: 0.1 }), 8);
    e.record("0:0", probs({ fr: 0.9, en: 0.1 }), 2, false, 8);
    e.forget("0:0", false, { from: 8, seconds: 3 }); // its rest decode heard nothing
    expect(e.prior()!.en).toBe(0);
    expect(e.prior()!.fr).toBeCloseTo(Math.log(0.1) - Math.log(0.9), 9);
    e.forget("0:0", false, { from: 0, seconds: 11 });
    expect(e.prior()).toBeUndefined();
  });
});
