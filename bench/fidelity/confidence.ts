/**
 * Does a word's confidence tell right words from wrong ones? Each service final's words, normalised
 * one by one as the WER is (a word may become several, which keep its confidence), are aligned with
 * the clip's reference; a word matched to its reference word is right, a substituted or inserted one
 * wrong. Reported per model: mean confidence of each, and their difference (issue target ≥ 0.15).
 */
import { align, type Turn } from "./metrics.ts";
import { fidelityWords } from "./normalize.ts";

export interface ScoredWord {
  word: string;
  confidence: number;
}

/** Confidences of the right and of the wrong words of one clip's finals. */
export function confidenceSplit(turns: Turn[], finals: { words?: ScoredWord[] }[]): { right: number[]; wrong: number[] } {
  const ref = fidelityWords(turns.map((t) => t.text).join(" "));
  const hyp: { word: string; confidence: number }[] = [];
  for (const f of finals) for (const w of f.words ?? []) for (const word of fidelityWords(w.word)) hyp.push({ word, confidence: w.confidence });
  const { refTo } = align(ref, hyp.map((h) => h.word));
  const matched = new Set(refTo.filter((j, i) => j >= 0 && ref[i] === hyp[j]!.word));
  const right: number[] = [];
  const wrong: number[] = [];
  hyp.forEach((h, j) => (matched.has(j) ? right : wrong).push(h.confidence));
  return { right, wrong };
}

/** One line per model: mean confidence of right and wrong words over its clips. */
export function confidenceLines(rows: { model: string; system: string; clip: string; finals: { words?: ScoredWord[] }[] }[], turnsOf: (clip: string) => Turn[]): string[] {
  const byModel = new Map<string, { right: number[]; wrong: number[] }>();
  for (const r of rows) {
    if (r.system !== "service") continue;
    const s = confidenceSplit(turnsOf(r.clip), r.finals);
    const acc = byModel.get(r.model) ?? { right: [], wrong: [] };
    acc.right.push(...s.right);
    acc.wrong.push(...s.wrong);
    byModel.set(r.model, acc);
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  return [...byModel].map(([model, { right, wrong }]) => {
    const [r, w] = [mean(right), mean(wrong)];
    return `${model}: word confidence, right words ${r.toFixed(3)} (${right.length}), wrong words ${w.toFixed(3)} (${wrong.length}), difference ${(r - w).toFixed(3)}`;
  });
}
