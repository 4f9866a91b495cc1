/**
 * English number words, and the word-level tests the number hold of the live session needs (does a
 * final end inside a spoken number, does the next one start with one). Kept apart from
 * `numerals.ts`, which loads compromise, so that the session path does not load it.
 */
/** Languages the numerals add-on rewrites; other languages pass through unchanged. */
const NUMERAL_LANGUAGES = ["en"] as const;

export function servesLanguage(language: string): boolean {
  const base = language.toLowerCase().split(/[-_]/)[0] ?? "";
  return base === "" || (NUMERAL_LANGUAGES as readonly string[]).includes(base);
}

const UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
const TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"];
const TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
const SCALES = ["hundred", "thousand", "million", "billion", "trillion"];
export const ORDINAL_UNITS = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"];
const ORDINALS = [...ORDINAL_UNITS, "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth", "eightieth", "ninetieth", "hundredth", "thousandth", "millionth"];
export const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
/** Words that are a cardinal number or part of one. */
export const CARDINAL_WORDS = new Set([...UNITS, ...TEENS, ...TENS, ...SCALES]);
/** Every word that is part of a spoken English number. */
export const NUMBER_WORDS = new Set([...UNITS, ...TEENS, ...TENS, ...SCALES, ...ORDINALS, "oh", "point", "minus", "dozen"]);

const lastWords = (text: string, n: number): string[] =>
  text
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/[^\p{L}\p{N}'-]/gu, ""))
    .filter((w) => w !== "")
    .slice(-n);

/**
 * Whether a final ends inside a spoken number, so more of it may follow: its last word is a number
 * word (or digits) or a connector after one ("twenty and", "three point"), and no question or
 * exclamation mark closes it. Periods are ignored: recognizers put one at every pause.
 */
export function endsInsideNumber(text: string, language: string): boolean {
  if (!servesLanguage(language)) return false;
  const trimmed = text.trim();
  if (/[?!]$/.test(trimmed)) return false;
  const [prev, last] = lastWords(trimmed, 2).length === 2 ? lastWords(trimmed, 2) : [undefined, lastWords(trimmed, 1)[0]];
  if (!last) return false;
  const isNumber = (w: string | undefined) => w !== undefined && (NUMBER_WORDS.has(w.replace(/-/g, " ").split(" ").pop() ?? "") || /^\d[\d-]*$/.test(w));
  if (isNumber(last) && last !== "point" && last !== "minus" && !ORDINALS.includes(last)) return true;
  return (last === "and" || last === "point" || last === "oh" || last === "dash") && isNumber(prev);
}

/** Whether an utterance begins with a number (the rest of a held one). */
export function startsWithNumber(text: string, language: string): boolean {
  if (!servesLanguage(language)) return false;
  const first = text.trim().toLowerCase().split(/\s+/)[0]?.replace(/[^\p{L}\p{N}'-]/gu, "") ?? "";
  return NUMBER_WORDS.has(first.split("-")[0] ?? "") || /^\d/.test(first);
}
