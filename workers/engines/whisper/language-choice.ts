/** A window's language: its own detection combined with the stream's earlier evidence. */
import type { LanguageProbability } from "../types.ts";

/** The likeliest language given a window's detection and the stream's log-evidence before it. */
export function withPrior(probabilities: LanguageProbability[], prior?: Record<string, number>): string {
  const values = prior ? Object.values(prior).filter(Number.isFinite) : [];
  if (values.length === 0) return probabilities[0]!.language;
  const absent = Math.min(...values);
  let best = probabilities[0]!;
  let bestScore = -Infinity;
  for (const p of probabilities) {
    const score = Math.log(Math.max(p.probability, 1e-12)) + (prior![p.language] ?? absent);
    if (score > bestScore) [best, bestScore] = [p, score];
  }
  return best.language;
}
