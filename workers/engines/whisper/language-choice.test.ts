import { describe, expect, test } from "bun:test";
import { byDecode, reweighted, rivalLanguage, withPriorProbabilities } from "./language-choice.ts";

const probs = (p: Record<string, number>) => Object.entries(p).map(([language, probability]) => ({ language, probability })).sort((a, b) => b.probability - a.probability);
const withPrior = (...args: Parameters<typeof withPriorProbabilities>) => withPriorProbabilities(...args)[0]!.language;

describe("withPriorProbabilities", () => {
  test("the window's own detection decides without evidence; with it, the evidence can outweigh a weak guess but not a strong one", () => {
    const nein = probs({ de: 0.6, en: 0.4 });
    expect(withPrior(nein)).toBe("de");
    expect(withPrior(nein, { en: 0, de: -3 })).toBe("en");
    expect(withPrior(probs({ de: 0.999, en: 0.001 }), { en: 0, de: -3 })).toBe("de");
    // a language absent from the evidence counts as its lowest
    expect(withPrior(probs({ fr: 0.5, en: 0.5 }), { en: 0, de: -2 })).toBe("en");
  });

  test("the combined probabilities sum to 1, likeliest first; without evidence they are the detection's", () => {
    const nein = probs({ de: 0.6, en: 0.4 });
    expect(withPriorProbabilities(nein)).toEqual(nein);
    const combined = withPriorProbabilities(nein, { en: 0, de: -3 });
    expect(combined.map((p) => p.language)).toEqual(["en", "de"]);
    expect(combined.reduce((s, p) => s + p.probability, 0)).toBeCloseTo(1, 9);
    expect(combined[0]!.probability).toBeCloseTo(0.4 / (0.4 + 0.6 * Math.exp(-3)), 9);
  });
});

describe("a language left uncertain is chosen by decoding", () => {
  test("only a likeliest language under one half has a rival: the second likeliest", () => {
    expect(rivalLanguage(probs({ ja: 0.47, en: 0.23, zh: 0.1 }))).toBe("en");
    expect(rivalLanguage(probs({ en: 0.5, de: 0.3 }))).toBeUndefined();
    expect(rivalLanguage(probs({ en: 0.9, de: 0.1 }))).toBeUndefined();
    expect(rivalLanguage([{ language: "en", probability: 0.4 }])).toBeUndefined();
  });

  test("the decode kept is the likelier jointly: the language's probability times its text's", () => {
    const ja = { language: "ja", probability: 0.47, sumLogprob: -14 };
    const en = { language: "en", probability: 0.23, sumLogprob: -3 };
    expect(byDecode([ja, en])).toBe(en);
    // a decode barely likelier does not outweigh a much likelier language
    expect(byDecode([{ ...ja, probability: 0.49, sumLogprob: -3.5 }, { ...en, probability: 0.05 }]).language).toBe("ja");
  });

  test("the detection's share of the two languages is divided as the decodes weigh, the rest unchanged", () => {
    const detected = probs({ ja: 0.47, en: 0.23, zh: 0.3 });
    const r = reweighted(detected, [{ language: "ja", probability: 0.47, sumLogprob: -14 }, { language: "en", probability: 0.23, sumLogprob: -3 }]);
    expect(r[0]!.language).toBe("en");
    expect(r.find((p) => p.language === "zh")!.probability).toBe(0.3);
    expect(r.reduce((s, p) => s + p.probability, 0)).toBeCloseTo(1, 9);
    const en = 0.23 * Math.exp(-3), ja = 0.47 * Math.exp(-14);
    expect(r.find((p) => p.language === "en")!.probability).toBeCloseTo((0.7 * en) / (en + ja), 9);
  });
});
