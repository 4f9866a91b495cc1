/**
 * `punctuation: false`: the transcript without punctuation and without sentence casing.
 * Removed: punctuation marks (Unicode category P) except `%`, `#`, `&`, `@`, `*`, `/`, and except a
 * mark standing between two letters or digits ("don't", "e-mail", "3.5", "7:05", "a@b.com").
 * Casing: the first word of each sentence is lower-cased unless it is "I", an acronym (all capitals)
 * or a proper noun as compromise tags it (names, places, organizations, months, days); every other
 * word keeps the recognizer's case.
 */
import nlp from "compromise";
import { applyEdits, type Edit, type OffsetMap, type TextState } from "./text.ts";

const KEPT = new Set(["%", "#", "&", "@", "*", "/"]);
const SENTENCE_END = /[.!?…。！？]/u;

/** Offsets of the words compromise tags as proper nouns. */
function properNounStarts(text: string): Set<number> {
  // biome-ignore lint/suspicious/noExplicitAny: compromise's JSON output is untyped.
  const terms = (nlp(text).json({ offset: true, terms: { offset: true } }) as any[]).flatMap((s) => s.terms) as Array<{ tags: string[]; offset: { start: number } }>;
  return new Set(terms.filter((t) => t.tags.some((tag) => ["ProperNoun", "Person", "Place", "Organization", "Month", "WeekDay", "Acronym"].includes(tag))).map((t) => t.offset.start));
}

function punctuationEdits(text: string): Edit[] {
  const edits: Edit[] = [];
  const isAlnum = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (!/\p{P}/u.test(c) || KEPT.has(c)) continue;
    if (isAlnum(text[i - 1]) && isAlnum(text[i + 1])) continue;
    // A mark standing alone ("a - b", "« b »") takes one neighbouring space with it.
    const alone = (i === 0 || /\s/.test(text[i - 1]!)) && (i + 1 === text.length || /\s/.test(text[i + 1]!));
    const end = alone && i + 1 < text.length ? i + 2 : i + 1;
    edits.push({ start: i, end, text: "" });
    i = end - 1;
  }
  // Sentence starts: the first word, and each word after a sentence-ending mark.
  const proper = properNounStarts(text);
  let sentenceStart = true;
  for (const m of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*|[.!?…。！？]/gu)) {
    const w = m[0];
    if (SENTENCE_END.test(w) && w.length === 1) {
      if (!isAlnum(text[m.index + 1])) sentenceStart = true;
      continue;
    }
    if (sentenceStart) {
      const first = w[0]!;
      const keep = w === "I" || /^I['’]/.test(w) || (w.length > 1 && w === w.toUpperCase()) || proper.has(m.index) || first === first.toLowerCase();
      if (!keep) edits.push({ start: m.index, end: m.index + 1, text: first.toLowerCase() });
    }
    sentenceStart = false;
  }
  return edits;
}

/** Removes punctuation and sentence casing. */
export function withoutPunctuation(state: TextState): { state: TextState; map: OffsetMap } {
  return applyEdits(state, punctuationEdits(state.text));
}
