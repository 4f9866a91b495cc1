/**
 * Word error rate: word-level Levenshtein distance (substitutions + deletions + insertions) over
 * the number of reference words, after lower-casing and stripping punctuation (apostrophes and
 * hyphens join, other non-letter, non-digit characters separate words).
 */

/** Lower-case words of `text` with punctuation stripped. */
export function normalizeWords(text: string): string[] {
  return text
    .normalize("NFC")
    .toLowerCase()
    .replace(/['’\-]/g, "")
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, " ")
    .trim()
    .split(" ")
    .filter((w) => w !== "");
}

/** Minimum number of word edits turning `hypothesis` into `reference`. */
export function wordEdits(reference: readonly string[], hypothesis: readonly string[]): number {
  let prev = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const row = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      const substitution = prev[j - 1]! + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1);
      row.push(Math.min(substitution, prev[j]! + 1, row[j - 1]! + 1));
    }
    prev = row;
  }
  return prev[hypothesis.length]!;
}

/** WER of `hypothesis` against `reference` (0 = identical; may exceed 1 with many insertions). */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = normalizeWords(reference);
  const hyp = normalizeWords(hypothesis);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  return wordEdits(ref, hyp) / ref.length;
}
