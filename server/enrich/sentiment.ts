/**
 * `sentiment_analysis`: one result per final utterance, from the AFINN-165 word list with negation
 * handling (`sentiment`). `positive` / `negative` by the sign of the score, `mixed` when both sides
 * weigh at least half as much as the other, `neutral` when no word carries a valence. English only:
 * other languages are reported `neutral`. Emotions are not modelled: `emotion` repeats the valence.
 */
import Sentiment from "sentiment";
import type { SentimentResult, Utterance } from "../../generated/openapi/types.gen.ts";
import { servesLanguage } from "./number-words.ts";

const analyzer = new Sentiment();

export type Valence = "positive" | "negative" | "neutral" | "mixed";

function valenceOf(text: string, language: string): Valence {
  if (!servesLanguage(language)) return "neutral";
  const r = analyzer.analyze(text);
  let pos = 0;
  let neg = 0;
  for (const c of r.calculation as Array<Record<string, number>>) {
    const v = Object.values(c)[0] ?? 0;
    if (v > 0) pos += v;
    else neg -= v;
  }
  if (pos > 0 && neg > 0 && Math.min(pos, neg) >= 0.5 * Math.max(pos, neg)) return "mixed";
  if (r.score > 0) return "positive";
  if (r.score < 0) return "negative";
  return pos > 0 || neg > 0 ? "mixed" : "neutral";
}

export function sentimentOf(u: Utterance): SentimentResult[] {
  const sentiment = valenceOf(u.text, u.language);
  return [{ sentiment, emotion: sentiment, text: u.text, start: u.start, end: u.end, channel: u.channel }];
}
