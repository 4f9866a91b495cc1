import { describe, expect, test } from "bun:test";
import { withPrior } from "./language-choice.ts";

const probs = (p: Record<string, number>) => Object.entries(p).map(([language, probability]) => ({ language, probability })).sort((a, b) => b.probability - a.probability);

describe("withPrior", () => {
  test("the window's own detection decides without evidence; with it, the evidence can outweigh a weak guess but not a strong one", () => {
    const nein = probs({ de: 0.6, en: 0.4 });
    expect(withPrior(nein)).toBe("de");
    expect(withPrior(nein, { en: 0, de: -3 })).toBe("en");
    expect(withPrior(probs({ de: 0.999, en: 0.001 }), { en: 0, de: -3 })).toBe("de");
    // a language absent from the evidence counts as its lowest
    expect(withPrior(probs({ fr: 0.5, en: 0.5 }), { en: 0, de: -2 })).toBe("en");
  });
});
