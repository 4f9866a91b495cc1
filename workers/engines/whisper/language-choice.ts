/** A window's language: its own detection combined with the stream's earlier evidence, and, when that leaves it uncertain, the decodes'. */
import type { LanguageProbability } from "../types.ts";

/**
 * Below this probability of its likeliest language, a final's language is not taken from the
 * detection alone: it is decoded in its two likeliest languages and the likelier decode is kept
 * (see `byDecode`). faster-whisper's `language_detection_threshold` draws its line at the same
 * place, and looks at more of the file there; a live stream has no more audio to look at.
 */
export const UNCERTAIN_BELOW = 0.5;

/** The detection combined with the stream's log-evidence before it (absent languages count as its lowest), likeliest first. */
export function withPriorProbabilities(probabilities: LanguageProbability[], prior?: Record<string, number>): LanguageProbability[] {
  const values = prior ? Object.values(prior).filter(Number.isFinite) : [];
  if (values.length === 0) return probabilities;
  const absent = Math.min(...values);
  const scores = probabilities.map((p) => Math.log(Math.max(p.probability, 1e-12)) + (prior![p.language] ?? absent));
  const top = Math.max(...scores);
  const weights = scores.map((s) => Math.exp(s - top));
  const total = weights.reduce((a, b) => a + b, 0);
  return probabilities.map((p, i) => ({ language: p.language, probability: weights[i]! / total })).sort((a, b) => b.probability - a.probability);
}

/** The second language a final is decoded in when the likeliest is uncertain (see `UNCERTAIN_BELOW`), else undefined. */
export function rivalLanguage(posterior: LanguageProbability[]): string | undefined {
  return posterior.length > 1 && posterior[0]!.probability < UNCERTAIN_BELOW ? posterior[1]!.language : undefined;
}

/** A decode of the audio in one language: the language's probability before it, and the decode's total log-probability. */
export interface LanguageDecode {
  language: string;
  probability: number;
  sumLogprob: number;
}

/**
 * The likelier of the decodes: log P(language | audio, evidence) + log P(text | language, audio),
 * the joint probability of each language with its best text. A dictation in an espeak-ng voice
 * that Whisper hears as Latin first decodes to likelier text in English, and so does a reply in
 * babble heard as German ("und steckt zur Person." against "I'll speak to that person.").
 */
export function byDecode<D extends LanguageDecode>(decodes: D[]): D {
  const score = (d: D) => Math.log(Math.max(d.probability, 1e-12)) + d.sumLogprob;
  return decodes.reduce((a, b) => (score(b) > score(a) ? b : a));
}

/**
 * The detection's probabilities with the decoded languages' share of them divided as their decodes
 * weigh (the stream's evidence of this audio's language, so an utterance does not vouch for the
 * language whose decode lost).
 */
export function reweighted(probabilities: LanguageProbability[], decodes: LanguageDecode[]): LanguageProbability[] {
  const decoded = new Map(decodes.map((d) => [d.language, d.sumLogprob]));
  const shares = probabilities.filter((p) => decoded.has(p.language));
  const mass = shares.reduce((s, p) => s + p.probability, 0);
  const logs = shares.map((p) => Math.log(Math.max(p.probability, 1e-12)) + decoded.get(p.language)!);
  const top = Math.max(...logs);
  const total = logs.reduce((s, l) => s + Math.exp(l - top), 0);
  const split = new Map(shares.map((p, i) => [p.language, (mass * Math.exp(logs[i]! - top)) / total]));
  return probabilities.map((p) => ({ language: p.language, probability: split.get(p.language) ?? p.probability })).sort((a, b) => b.probability - a.probability);
}
