const DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];

/**
 * Lower case, punctuation dropped, single spaces, a lone digit spelled out: how tests compare
 * recognised text ("A." → "a", "0" → "zero"; Whisper writes a lone number either way).
 */
export const words = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}' ]+/gu, " ")
    .replace(/\b\d\b/g, (d) => DIGITS[Number(d)]!)
    .replace(/\s+/g, " ")
    .trim();

/**
 * `words()` with every digit spelled out one by one ("415" → "four one five"): for spoken digit
 * strings, which Whisper writes as figures or as words depending on its prompt and beam.
 */
export const digitWords = (text: string): string =>
  words(text.replace(/\d/g, (d) => ` ${DIGITS[Number(d)]!} `));
