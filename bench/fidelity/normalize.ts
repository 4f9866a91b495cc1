/**
 * bench/fidelity's word normaliser: test/asr/wer.ts `normalizeWords` (lower case, punctuation
 * stripped), then numbers written as single digits, the same for the reference and every system, so
 * that "four one five", "415" and "4-1-5" compare equal, as do "eighty two" and "82", "twenty twenty
 * four" and "2024", "four hundred and fifteen" and "415":
 *
 * - a run of number words is read as numbers the way a speaker groups them: a units word after a
 *   tens word joins it ("eighty two" = 82), a units/teens/tens word after another units/teens word
 *   starts a new number ("four one five" = 4, 1, 5; "twenty twenty four" = 20, 24), "hundred" and
 *   "thousand" multiply ("four hundred and fifteen" = 415; "and" is dropped only there);
 * - "oh" next to a number word or digit is 0 ("four oh seven");
 * - every number, from words or written in digits, becomes its digits, one token each
 *   ("415" → 4 1 5, "0132" → 0 1 3 2, "$82" → 8 2 dollars);
 * - a few spellings are merged: ok → okay, alright → all right, hyphen-joined tens ("forty-two",
 *   joined into "fortytwo" by normalizeWords) → forty two.
 *
 * So a number counts one word per digit in the WER, on both sides.
 */
import { normalizeWords } from "../../test/asr/wer.ts";

const UNITS: Record<string, number> = { zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9 };
const TEENS: Record<string, number> = { ten: 10, eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19 };
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const SPELLINGS: Record<string, string[]> = { ok: ["okay"], alright: ["all", "right"] };
const COMPOUND = new RegExp(`^(${Object.keys(TENS).join("|")})(${Object.keys(UNITS).join("|")})$`);

const isNumberWord = (w: string | undefined) => w !== undefined && (w in UNITS || w in TEENS || w in TENS || w === "hundred" || w === "thousand" || /^\d+$/.test(w));

/** Words of `text` as bench/fidelity compares them (see the module comment). */
export function fidelityWords(text: string): string[] {
  const raw = normalizeWords(text.replace(/\$(\d[\d,.]*)/g, "$1 dollars")).flatMap((w) => {
    const c = COMPOUND.exec(w);
    return c ? [c[1]!, c[2]!] : (SPELLINGS[w] ?? [w]);
  });
  const out: string[] = [];
  let total = 0;
  let cur: number | null = null;
  let last: "unit" | "teen" | "tens" | "hundred" | "thousand" | null = null;
  const flush = () => {
    if (cur !== null || last === "thousand") out.push(...String(total + (cur ?? 0)).split(""));
    total = 0;
    cur = null;
    last = null;
  };
  for (let i = 0; i < raw.length; i++) {
    let w = raw[i]!;
    if (w === "oh" && (isNumberWord(raw[i - 1]) || isNumberWord(raw[i + 1]))) w = "zero";
    if (w in UNITS) {
      const u = UNITS[w]!;
      if (last === "tens" && cur !== null && cur % 10 === 0) {
        cur += u;
        last = "unit";
      } else if (last === "hundred" || last === "thousand") {
        cur = (cur ?? 0) + u;
        last = "unit";
      } else {
        flush();
        cur = u;
        last = "unit";
      }
    } else if (w in TEENS || w in TENS) {
      const v = (TEENS[w] ?? TENS[w])!;
      if (last === "hundred" || last === "thousand") cur = (cur ?? 0) + v;
      else {
        flush();
        cur = v;
      }
      last = w in TEENS ? "teen" : "tens";
    } else if (w === "hundred" && (last === "unit" || last === "teen")) {
      cur = cur! * 100;
      last = "hundred";
    } else if (w === "thousand" && last !== null && last !== "thousand") {
      total += cur! * 1000;
      cur = null;
      last = "thousand";
    } else if (w === "and" && (last === "hundred" || last === "thousand") && isNumberWord(raw[i + 1]) && !/^\d/.test(raw[i + 1]!)) {
      // "four hundred and fifteen"
    } else {
      flush();
      if (/^\d+$/.test(w)) out.push(...w.split(""));
      else out.push(w);
    }
  }
  flush();
  return out;
}
