/**
 * Repetition loops in a decode: Whisper, given audio it cannot make out (digits read fast, noise, a
 * prompt full of numbers), may emit the same few tokens over and over until its token limit. The
 * gzip ratio catches such a loop only once the text is long (a short "41, 41, 41, 41" compresses
 * badly), so the search checks the tail of each hypothesis as it grows and stops it once it loops.
 */

/** Longest repeated unit looked for, in text tokens. */
export const MAX_LOOP_UNIT = 12;

/**
 * Consecutive repetitions of a unit of `unit` text tokens that make a loop. Short units need more:
 * a word or digit said four times running ("no, no, no, no"; "1111") is speech, ten times is not.
 * Every threshold asks for about a dozen tokens of pure repetition.
 */
export function loopRepeats(unit: number): number {
  return unit === 1 ? 10 : unit === 2 ? 6 : 4;
}

/**
 * Where a repetition loop at the end of `tokens` starts to repeat, as an index into `tokens`: the
 * tokens before it hold the loop's unit once (what was probably said), those from it on are the
 * loop. -1 when the tail does not loop. Tokens for which `skip` is true (timestamps) are left out
 * of the comparison: a loop across segments repeats its text, not its times. A unit with fewer than
 * `minDistinct` different tokens is not counted (with punctuation skipped, "1-1-1-1, 1-1-1-1" is one
 * token over and over, which a card number may well be).
 */
export function loopCut(tokens: readonly number[], skip: (t: number) => boolean = () => false, minDistinct = 1): number {
  const text: number[] = [];
  const at: number[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (!skip(tokens[i]!)) {
      text.push(tokens[i]!);
      at.push(i);
    }
  }
  const n = text.length;
  for (let p = 1; p <= MAX_LOOP_UNIT; p++) {
    const need = loopRepeats(p);
    if (n < p * need) break;
    // Count how far back the last unit repeats with period p.
    let same = 0;
    while (same < n - p && text[n - 1 - same] === text[n - 1 - same - p]) same++;
    const repeats = Math.floor(same / p) + 1;
    if (repeats >= need && new Set(text.slice(n - p)).size >= minDistinct) {
      // The loop's tokens begin (repeats − 1) units before the last one; the first unit is kept.
      const firstUnitStart = n - repeats * p;
      return at[firstUnitStart + p]!;
    }
  }
  return -1;
}

/**
 * The index of the last timestamp in `tokens` that closes a segment (follows its text), or -1: a
 * decode cut out of a loop can resume there, the segments before it being whole.
 */
export function lastClosedSegment(tokens: readonly number[], isTimestamp: (t: number) => boolean): number {
  for (let i = tokens.length - 1; i >= 1; i--) if (isTimestamp(tokens[i]!) && !isTimestamp(tokens[i - 1]!)) return i;
  return -1;
}

/**
 * Words a speaker says per second at most, a digit counting as a word ("415" is said as three):
 * a fast speaker says four or five. A decode holding more than this per second of its audio (plus
 * `DENSITY_SLACK`) made words up, as Whisper does on audio it cannot make out when its prompt
 * gives it text to go on ("1, 2, 3, 4" then "3, 2, 3, 4, 3, 4, 3, 4" for a 0.5-s "Billing.").
 */
export const MAX_WORDS_PER_SECOND = 6;
const DENSITY_SLACK = 2;

/** Words of `text` as said: digits one by one, other words as written. */
export function spokenWords(text: string): number {
  let n = 0;
  for (const w of text.split(/\s+/)) {
    const digits = (w.match(/\p{N}/gu) ?? []).length;
    n += digits > 0 ? digits : /[\p{L}]/u.test(w) ? 1 : 0;
  }
  return n;
}

/** `text` holds more words than `seconds` of audio can (see `MAX_WORDS_PER_SECOND`). */
export function tooDense(text: string, seconds: number): boolean {
  return spokenWords(text) > MAX_WORDS_PER_SECOND * seconds + DENSITY_SLACK;
}

/**
 * Audio shorter than this (s), a word or two, is checked for words borrowed from its prompt
 * (`borrowsFromPrompt`); a longer utterance often says a name of its prompt again, which the
 * unprompted decode would then misspell.
 */
export const SHORT_AUDIO_S = 1.5;

/**
 * Lower-cased words of `text`, letters and digits only; digits joined by punctuation are separate
 * words ("2,3,4" is three, as "2, 3, 4" is: Whisper writes a digit run either way).
 */
export const plainWords = (text: string) =>
  text
    .toLowerCase()
    .split(/\s+|(?<=\p{N})[,.\-/](?=\p{N})/u)
    .map((w) => w.replace(/[^\p{L}\p{N}]+/gu, ""))
    .filter((w) => w !== "");

/**
 * `text` (the decode of a short utterance) repeats two words in a row of its prompt's last twenty:
 * on a word or two it cannot make out, Whisper continues or copies its prompt ("592 main menu" for
 * "Nine." after "592. Main menu."). Such a decode is made again without the prompt; where the
 * speaker did say them again, that decode says so too.
 */
export function borrowsFromPrompt(text: string, prompt: string): boolean {
  const t = plainWords(text);
  const p = plainWords(prompt).slice(-20);
  const pairs = new Set(p.slice(1).map((w, i) => `${p[i]} ${w}`));
  return t.slice(1).some((w, i) => pairs.has(`${t[i]} ${w}`));
}
