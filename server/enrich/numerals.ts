/**
 * `numerals`: numbers spoken as words written as digits (English). compromise finds the number
 * phrases and their values; this module composes what a transcript needs on top of it: digit
 * sequences read one by one ("five five five one two" → "55512"), years ("nineteen ninety two" →
 * "1992"), compound ordinals ("twenty first" → "21st"), clock times ("three thirty pm" → "3:30 pm"),
 * money ("twenty dollars and five cents" → "$20.05") and percentages. A lone "one", quantities
 * such as "a few", and ordinals first…tenth outside dates stay words.
 */
import nlp from "compromise";
import { MONTHS, NUMBER_WORDS, ORDINAL_UNITS, servesLanguage } from "./number-words.ts";
import { applyEdits, type Edit, type OffsetMap, type TextState } from "./text.ts";

export { CARDINAL_WORDS, endsInsideNumber, servesLanguage, startsWithNumber } from "./number-words.ts";

const CURRENCY: Record<string, string> = { dollar: "$", dollars: "$", bucks: "$", euro: "€", euros: "€", pound: "£", pounds: "£" };
const SUBUNIT = new Set(["cent", "cents", "pence", "penny"]);
const MERIDIEM = /^(a\.?m\.?|p\.?m\.?)$/i;

interface Token {
  start: number;
  end: number;
  word: string;
}

/** A number phrase found in the text. */
export interface NumberPhrase {
  start: number;
  end: number;
  text: string;
  value: number;
  ordinal: boolean;
  /** "to" / "too" (or "for") heard for a digit: a digit only inside a longer digit sequence. */
  homophone?: boolean;
}

/** Words recognizers write for a digit read alone. */
const HOMOPHONES: Record<string, number> = { to: 2, too: 2, for: 4 };

const wordsOf = (text: string): Token[] =>
  [...text.matchAll(/[\p{L}\p{N}'’.$€£%:-]+/gu)].map((m) => {
    const word = m[0].replace(/(?<![ap]\.[ap]|[ap]\.m)[.,:-]+$/i, "");
    return { start: m.index, end: m.index + word.length, word: word.toLowerCase() };
  });

const valueOf = (phrase: string): number | null => {
  const found = nlp(phrase).numbers().get() as unknown[];
  const v = found.length === 1 ? found[0] : null;
  return typeof v === "number" && Number.isFinite(v) ? v : null;
};

/** Number phrases of `text`, as compromise reads them, with the corrections listed above. */
function findNumberPhrases(text: string): NumberPhrase[] {
  // biome-ignore lint/suspicious/noExplicitAny: compromise's JSON output is untyped.
  const found = nlp(text).numbers().json({ offset: true, terms: { offset: true } }) as any[];
  const out: NumberPhrase[] = [];
  for (const n of found) {
    const terms = n.terms as Array<{ text: string; offset: { start: number; length: number }; tags: string[] }>;
    const first = terms[0];
    const last = terms[terms.length - 1];
    if (!first || !last) continue;
    const start = first.offset.start;
    const end = last.offset.start + last.offset.length;
    const phrase = text.slice(start, end);
    const words = phrase.toLowerCase().split(/[\s-]+/).map((w) => w.replace(/[^a-z0-9.]/g, ""));
    if (/^[\d,.]+$/.test(phrase) && !/^\d{1,3}(,\d{3})*(\.\d+)?$|^\d+(\.\d+)?$/.test(phrase)) continue;
    if (!words.some((w) => NUMBER_WORDS.has(w) || /\d/.test(w))) continue; // "a few", "several"
    const ordinal = last.tags.includes("Ordinal");
    let value: number | null = n.number?.num ?? null;
    value = correctValue(words, value, ordinal);
    if (value === null) continue;
    if (!Number.isInteger(value) && !words.includes("point") && !/\d\.\d/.test(phrase)) continue; // "a second" is not 0.5
    out.push({ start, end, text: phrase, value, ordinal });
  }
  return out;
}

/** compromise reads "nineteen ninety two" as 0 and "twenty first" as 20; read those here. */
function correctValue(words: string[], value: number | null, ordinal: boolean): number | null {
  if (ordinal && words.length >= 2) {
    const unit = ORDINAL_UNITS.indexOf(words[words.length - 1]!);
    const head = valueOf(words.slice(0, -1).join(" "));
    if (unit > 0 && head !== null && head % 10 === 0) return head + unit;
  }
  if ((value === 0 || value === null) && !words.includes("zero") && !words.includes("oh")) {
    for (let k = 1; k < words.length && k <= 2; k++) {
      const hi = valueOf(words.slice(0, k).join(" "));
      const rest = words.slice(k);
      const lo = rest.length === 1 && rest[0] === "hundred" ? 0 : valueOf(rest.join(" "));
      if (hi !== null && lo !== null && hi >= 10 && hi <= 99 && lo >= 0 && lo <= 99) return hi * 100 + lo;
    }
    return null;
  }
  return value;
}

const ordinalSuffix = (n: number): string => {
  const t = n % 100;
  if (t >= 11 && t <= 13) return "th";
  return ["th", "st", "nd", "rd"][n % 10] ?? "th";
};

const singleDigit = (p: NumberPhrase): boolean => !p.ordinal && Number.isInteger(p.value) && p.value >= 0 && p.value <= 9 && !/\s/.test(p.text.trim());

/** The edits that write the numbers of `text` as digits. */
export function numeralEdits(text: string, language: string): Edit[] {
  if (!servesLanguage(language)) return [];
  const tokens = wordsOf(text);
  const tokenAt = (offset: number) => tokens.findIndex((t) => t.start <= offset && offset < t.end);
  const nextToken = (end: number): Token | undefined => tokens.find((t) => t.start >= end);
  const prevToken = (start: number): Token | undefined => [...tokens].reverse().find((t) => t.end <= start);
  const between = (a: number, b: number) => text.slice(a, b);
  // "oh" inside a digit sequence is zero: compromise does not see it as a number.
  const phrases = findNumberPhrases(text);
  // Digits already written one by one ("5, 5, 5, 0, 1"): part of a digit sequence like spoken ones.
  for (const m of text.matchAll(/(?<![\p{L}\p{N}.,])\d(?![\p{L}\p{N}]|[.,]\d)/gu)) if (!phrases.some((p) => p.start <= m.index && m.index < p.end)) phrases.push({ start: m.index, end: m.index + 1, text: m[0], value: Number(m[0]), ordinal: false });
  for (const t of tokens) if (HOMOPHONES[t.word] !== undefined) phrases.push({ start: t.start, end: t.end, text: text.slice(t.start, t.end), value: HOMOPHONES[t.word]!, ordinal: false, homophone: true });
  for (const t of tokens) {
    if (t.word !== "oh") continue;
    const before = phrases.find((p) => p.end <= t.start && /^[\s,]*$/.test(between(p.end, t.start)));
    const after = phrases.find((p) => p.start >= t.end && /^[\s,]*$/.test(between(t.end, p.start)));
    if ((before && singleDigit(before)) || (after && singleDigit(after))) phrases.push({ start: t.start, end: t.end, text: text.slice(t.start, t.end), value: 0, ordinal: false });
  }
  phrases.sort((a, b) => a.start - b.start);

  const edits: Edit[] = [];
  for (let i = 0; i < phrases.length; i++) {
    const p = phrases[i]!;
    const after = nextToken(p.end);
    const before = prevToken(p.start);
    // Clock time: hour, minutes, am/pm ("three thirty pm", "seven oh five a.m.").
    const q = phrases[i + 1];
    if (q && Number.isInteger(p.value) && p.value >= 1 && p.value <= 12 && /^\s+$/.test(between(p.end, q.start))) {
      const r = phrases[i + 2];
      let minutes: number | null = null;
      let last = q;
      if (q.value === 0 && r && singleDigit(r) && /^\s+$/.test(between(q.end, r.start))) {
        minutes = r.value;
        last = r;
      } else if (q.value >= 10 && q.value <= 59 && Number.isInteger(q.value) && !q.ordinal) minutes = q.value;
      const mer = nextToken(last.end);
      if (minutes !== null && mer && MERIDIEM.test(mer.word)) {
        edits.push({ start: p.start, end: last.end, text: `${p.value}:${String(minutes).padStart(2, "0")}` });
        i = phrases.indexOf(last);
        continue;
      }
    }
    // A run of single digits read one by one: one number ("five five five" → "555").
    let j = i;
    while (j + 1 < phrases.length && singleDigit(phrases[j]!) && singleDigit(phrases[j + 1]!) && /^[\s,-]*$/.test(between(phrases[j]!.end, phrases[j + 1]!.start))) j++;
    // Two written digits with a comma between them are a list ("2, 3 minutes"), not a sequence.
    // "to" / "too" / "for" count as digits only within seven or more digits of which five are real.
    const members = phrases.slice(i, j + 1);
    if (members.some((q) => q.homophone) && (members.length < 7 || members.filter((q) => !q.homophone).length < 5)) {
      const firstReal = members.findIndex((q) => !q.homophone);
      if (p.homophone) continue;
      j = i + Math.max(0, members.findIndex((q, k) => k > firstReal && q.homophone) - 1);
      if (members.findIndex((q, k) => k > firstReal && q.homophone) < 0) j = i + members.length - 1;
    }
    const listLike = j - i === 1 && /,/.test(between(p.end, phrases[j]!.start)) && phrases.slice(i, j + 1).some((q) => /^\d$/.test(q.text));
    if (j > i && !listLike) {
      edits.push({ start: p.start, end: phrases[j]!.end, text: phrases.slice(i, j + 1).map((q) => String(q.value)).join("") });
      i = j;
      continue;
    }
    if (after && (after.word === "o'clock" || after.word === "o’clock") && p.value >= 1 && p.value <= 12) {
      edits.push({ start: p.start, end: after.end, text: `${p.value}:00` });
      continue;
    }
    // "twenty twenty" + "four": compromise splits a year whose last part has a unit.
    const unit = phrases[i + 1];
    if (unit && p.value >= 1000 && p.value % 10 === 0 && /^(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)$/i.test(p.text.split(/\s+/).pop() ?? "") && singleDigit(unit) && unit.value > 0 && /^\s+$/.test(between(p.end, unit.start))) {
      edits.push({ start: p.start, end: unit.end, text: String(p.value + unit.value) });
      i++;
      continue;
    }
    // Money: "<n> dollars [and <m> cents]" → "$n.mm".
    if (after && CURRENCY[after.word]) {
      let end = after.end;
      let amount = formatValue(p.value);
      const cents = phrases[i + 1];
      if (cents && /^\s+(and\s+)?$/i.test(between(after.end, cents.start)) && Number.isInteger(cents.value) && cents.value < 100) {
        const unit = nextToken(cents.end);
        if (unit && SUBUNIT.has(unit.word)) {
          amount = `${Math.trunc(p.value)}.${String(cents.value).padStart(2, "0")}`;
          end = unit.end;
          i++;
        }
      }
      edits.push({ start: p.start, end, text: `${CURRENCY[after.word]}${amount}` });
      continue;
    }
    if (after && (after.word === "percent" || after.word === "per") ) {
      const cent = after.word === "per" ? nextToken(after.end) : after;
      if (cent && (cent.word === "percent" || cent.word === "cent")) {
        edits.push({ start: p.start, end: cent.end, text: `${formatValue(p.value)}%` });
        continue;
      }
    }
    // Words that stay words: a lone "one", first…tenth outside dates.
    const lower = p.text.toLowerCase().trim();
    if (!p.ordinal && lower === "one" && !(after && (SUBUNIT.has(after.word) || CURRENCY[after.word]))) continue;
    if (p.ordinal && p.value <= 10 && !/\s/.test(lower)) {
      const nearMonth = (after && MONTHS.includes(after.word)) || (before && MONTHS.includes(before.word)) || (after?.word === "of" && MONTHS.includes(nextToken(after.end)?.word ?? ""));
      if (!nearMonth) continue;
    }
    if (p.homophone || tokenAt(p.start) < 0 || /^[\d,.]+(st|nd|rd|th)?$/i.test(p.text)) continue; // already digits
    edits.push({ start: p.start, end: p.end, text: p.ordinal ? `${p.value}${ordinalSuffix(p.value)}` : formatValue(p.value) });
  }
  return edits;
}

const formatValue = (v: number): string => (Number.isInteger(v) ? String(v) : String(Number(v.toFixed(6))));

/** Writes the numbers of an utterance as digits. */
export function toNumerals(state: TextState, language: string): { state: TextState; map: OffsetMap } {
  return applyEdits(state, numeralEdits(state.text, language));
}
