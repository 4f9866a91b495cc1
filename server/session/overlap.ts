/**
 * Where a new decode of a streamed utterance's buffer goes past the words already committed from
 * it. Every decode re-reads the committed words' audio, and writes them its own way: "415, 5, 5, 5"
 * may come back as "415-555-0132.", "current" as "card". Matching whole words then fails and the
 * committed words would be shown twice; matching characters (letters and digits, case ignored)
 * finds the end of the committed text even inside a number, which is then split.
 */
import type { WordTiming } from "../../workers/contract/types.ts";

/** English digit names: decodes write a digit either way ("Four." / "4."). */
const DIGIT_NAMES: Record<string, string> = { zero: "0", one: "1", two: "2", three: "3", four: "4", five: "5", six: "6", seven: "7", eight: "8", nine: "9" };

/** Lower case, letters and digits only, an English digit name as its digit: how words are compared between decodes. */
export function normalizeWord(word: string): string {
  const w = word.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
  return DIGIT_NAMES[w] ?? w;
}

const same = (a: WordTiming, b: WordTiming) => normalizeWord(a.word) === normalizeWord(b.word);

/**
 * Words in a row two hypotheses must share after a stretch they read differently for their
 * agreement to go on past it, and the most words either may have in that stretch. Successive decodes
 * of a long buffer often read one word differently ("unplug the power cable" / "and run the power
 * cable"), above all a greedy partial and a beam search, and go on alike: with a strict common
 * prefix nothing after that word is ever committed, the buffer is never cut, and every decode
 * (the final's too) covers the whole utterance.
 */
const RESYNC_RUN = 4;
/** Where a disputed stretch may end: words skipped in (older, newer), likeliest first. */
const RESYNC_SKIPS: [number, number][] = [[1, 1], [1, 0], [0, 1], [2, 2], [2, 1], [1, 2], [2, 0], [0, 2]];

/** From words `i` of `a` and `j` of `b`, which read differently: the skips after which they share `RESYNC_RUN` words. */
function resync(a: WordTiming[], b: WordTiming[], i: number, j: number): [number, number] | null {
  for (const [di, dj] of RESYNC_SKIPS) {
    if (i + di + RESYNC_RUN > a.length || j + dj + RESYNC_RUN > b.length) continue;
    let k = 0;
    while (k < RESYNC_RUN && same(a[i + di + k]!, b[j + dj + k]!)) k++;
    if (k === RESYNC_RUN) return [di, dj];
  }
  return null;
}

/** Prefix lengths (in `a`, in `b`) after each word the two agree on, in order (see `RESYNC_RUN`). */
function agreedEnds(a: WordTiming[], b: WordTiming[]): [number, number][] {
  const ends: [number, number][] = [];
  let [i, j] = [0, 0];
  while (i < a.length && j < b.length) {
    if (same(a[i]!, b[j]!)) {
      ends.push([++i, ++j]);
      continue;
    }
    const skip = resync(a, b, i, j);
    if (skip === null) break;
    i += skip[0];
    j += skip[1];
  }
  return ends;
}

/**
 * Where all the hypotheses agree, the newest last: the prefix lengths (one per hypothesis) after
 * each word of the newest that every older one reads the same, in order. A stretch of up to two
 * words read differently does not end the agreement when `RESYNC_RUN` words they share follow it;
 * the prefixes then differ in length, and the newest's reading of the stretch is the one kept.
 */
export function agreedPrefixes(hypotheses: WordTiming[][]): number[][] {
  const newest = hypotheses.at(-1);
  if (newest === undefined) return [];
  const older = hypotheses.slice(0, -1).map((h) => new Map(agreedEnds(h, newest).map(([i, j]) => [j, i])));
  const out: number[][] = [];
  for (let j = 1; j <= newest.length; j++) {
    const at = older.map((m) => m.get(j));
    if (at.every((i) => i !== undefined)) out.push([...(at as number[]), j]);
  }
  return out;
}

/**
 * Words in a row, and letters and digits in them, that a decode must share with its prompt to be
 * taken for a copy of it. A decode prompted with a long stretch of the utterance sometimes writes the
 * prompt out again instead of its audio ("and you can open the settings, and when the power light
 * turns on, you can open the settings," for "page in your browser, sign in with the password");
 * speech that says five words again within one utterance is rare.
 */
const COPY_RUN = 5;
const COPY_CHARS = 16;

/** `words` hold a run of `COPY_RUN` words (of `COPY_CHARS` letters and digits at least) found in a row in `source`. */
export function copiesFrom(words: WordTiming[], source: WordTiming[]): boolean {
  const key = (ws: WordTiming[], i: number) => ws.slice(i, i + COPY_RUN).map((w) => normalizeWord(w.word)).join(" ");
  const runs = new Set<string>();
  for (let i = 0; i + COPY_RUN <= source.length; i++) runs.add(key(source, i));
  for (let i = 0; i + COPY_RUN <= words.length; i++) {
    const k = key(words, i);
    if (k.replaceAll(" ", "").length >= COPY_CHARS && runs.has(k)) return true;
  }
  return false;
}

/** Longest unit of words looked for by `loopFreeLength`. */
const MAX_LOOP_WORDS = 6;

/**
 * Times in a row a unit of words makes a loop in committed text. Dictated digits repeat ("5, 5, 5",
 * "0000"), as does a word now and then ("no, no, no"); a phrase said three times running is rare,
 * and a decode of noise or of digits it cannot make out often is one ("The hero is one." over and
 * over, "41, 41, 41, 41, 41").
 */
function loopTimes(unit: string[]): number {
  if (unit.every((w) => /^\d+$/.test(w))) return 5;
  return unit.length === 1 ? 4 : 3;
}

/**
 * How many of `added` (a decode's words after the committed ones, `before`) can be committed
 * without a repetition loop: up to the word where a unit of words (up to `MAX_LOOP_WORDS`) repeated
 * in a row goes past `loopTimes` − 1 occurrences, when the repetition reaches `loopTimes` or, with
 * `open` (more audio may follow), runs on to the decode's last word or the one before it (the last
 * is often cut off by the end of the audio, and the rest of the occurrence may follow); else
 * `added.length`. Successive greedy
 * decodes of noise or of digits they cannot make out can agree on the same loop, each below the
 * engine's own check (which looks within one decode), and committed words are never taken back.
 */
export function loopFreeLength(before: WordTiming[], added: WordTiming[], open = true): number {
  const context = before.slice(-MAX_LOOP_WORDS * 5);
  const words = [...context, ...added].map((w) => normalizeWord(w.word));
  let free = added.length;
  for (let e = context.length; e < words.length; e++) {
    for (let n = 1; n <= MAX_LOOP_WORDS && n <= e; n++) {
      const unit = words.slice(e - n + 1, e + 1);
      if (unit.includes("") || (n > 1 && unit.every((w) => w === unit[0]))) continue;
      // The stretch ending at `e` in which every word is the one `n` before it, plus the first unit.
      let run = 0;
      while (e - run - n >= 0 && words[e - run] === words[e - run - n]) run++;
      const span = run + n;
      const allowed = (loopTimes(unit) - 1) * n;
      if (span > allowed && (span >= loopTimes(unit) * n || (open && e >= words.length - 2))) free = Math.min(free, Math.max(0, e - span + 1 + allowed - context.length));
    }
  }
  return free;
}

/**
 * Edits per committed character up to which a decode still counts as repeating the committed text
 * (a re-spelled or dropped word); beyond it the words are matched as `alignToCommitted` does.
 */
const MAX_EDIT_RATE = 0.25;

/**
 * The words of `words` (a new decode of the buffer) after those standing for `committed` (the
 * committed words in the buffer, in order). When the committed text ends inside a word of the
 * decode, that word's rest is kept, timed in proportion to its characters.
 */
export function afterCommitted(words: WordTiming[], committed: WordTiming[]): WordTiming[] {
  const n = committed.length;
  if (n === 0) return words;
  if (words.length >= n && committed.every((c, i) => same(c, words[i]!))) return words.slice(n);
  const c = committed.map((w) => normalizeWord(w.word)).join("");
  const normalized = words.map((w) => normalizeWord(w.word));
  const end = c.length > 0 ? alignedEnd(c, normalized, Math.max(1, Math.floor(MAX_EDIT_RATE * c.length))) : null;
  // No alignment, and less text than the committed words: the decode skipped audio, nothing is new.
  if (end === null) return normalized.join("").length < c.length ? [] : words.slice(alignToCommitted(words, committed));
  return wordsAfter(words, normalized, end);
}

/**
 * The words of a decode after the committed words it re-reads: `before`, the end of the text
 * before a buffer cut (the decode may or may not repeat it: it is left out where the decode starts
 * with it, allowing a quarter of its characters to differ), then `committed` (`afterCommitted`).
 */
export function afterReread(words: WordTiming[], before: WordTiming[], committed: WordTiming[]): WordTiming[] {
  let rest = words;
  const c = before.map((w) => normalizeWord(w.word)).join("");
  if (c.length > 0) {
    const normalized = words.map((w) => normalizeWord(w.word));
    const end = alignedEnd(c, normalized, Math.floor(MAX_EDIT_RATE * c.length));
    if (end !== null) rest = wordsAfter(words, normalized, end);
  }
  return afterCommitted(rest, committed);
}

/** The words after the first `end` letters and digits (`normalized`: each word's), a word split there keeping its rest. */
function wordsAfter(words: WordTiming[], normalized: string[], end: number): WordTiming[] {
  let consumed = 0;
  for (let i = 0; i < words.length; i++) {
    const len = normalized[i]!.length;
    if (consumed + len <= end) {
      consumed += len;
      continue;
    }
    const inside = end - consumed;
    if (inside === 0) return words.slice(i);
    // Only a number is split (its digits grouped otherwise than the committed ones): inside a word
    // of letters the alignment ends there by a mismatch, and the word is taken whole or not at all.
    if (/\p{N}/u.test(words[i]!.word)) return [restOf(words[i]!, inside, len), ...words.slice(i + 1)];
    return 2 * inside >= len ? words.slice(i + 1) : words.slice(i);
  }
  return [];
}

/**
 * The end (in characters of `d`) of the prefix of `d` that `c` aligns to with the fewest edits
 * (Levenshtein, `c` whole against a prefix of `d`, the words joined), when there are at most `maxEdits`; ties go to
 * an end between words, then to the end nearest `c`'s length.
 */
function alignedEnd(c: string, words: string[], maxEdits: number): number | null {
  const d = words.join("");
  const boundaries = new Set<number>();
  let at = 0;
  for (const w of words) boundaries.add((at += w.length));
  let prev = new Int32Array(d.length + 1);
  let cur = new Int32Array(d.length + 1);
  for (let j = 0; j <= d.length; j++) prev[j] = j;
  for (let i = 1; i <= c.length; i++) {
    cur[0] = i;
    const ci = c.charCodeAt(i - 1);
    for (let j = 1; j <= d.length; j++) {
      const sub = prev[j - 1]! + (ci === d.charCodeAt(j - 1) ? 0 : 1);
      cur[j] = Math.min(sub, prev[j]! + 1, cur[j - 1]! + 1);
    }
    [prev, cur] = [cur, prev];
  }
  let best = -1;
  for (let j = 0; j <= d.length; j++) {
    if (best < 0 || prev[j]! < prev[best]!) best = j;
    else if (prev[j] === prev[best]) {
      const jb = boundaries.has(j) || j === 0;
      const bb = boundaries.has(best) || best === 0;
      if ((jb && !bb) || (jb === bb && Math.abs(j - c.length) < Math.abs(best - c.length))) best = j;
    }
  }
  return prev[best]! <= maxEdits ? best : null;
}

/** The part of `w` after its first `inside` letters and digits (of `total`), punctuation before it dropped. */
function restOf(w: WordTiming, inside: number, total: number): WordTiming {
  let seen = 0;
  let k = 0;
  const chars = [...w.word];
  while (k < chars.length && seen < inside) {
    if (normalizeWord(chars[k]!) !== "") seen++;
    k++;
  }
  while (k < chars.length && normalizeWord(chars[k]!) === "") k++;
  const start = w.start + ((w.end - w.start) * inside) / total;
  return { ...w, word: chars.slice(k).join(""), start: Math.round(start * 1000) / 1000 };
}

/**
 * How many leading words of a new decode of the buffer stand for the `committed` words already in
 * it: the committed words themselves when the decode repeats them; else the cut, within three words
 * of that count, after which the decode best matches the last three committed words (a decode may
 * re-spell or drop a committed word); else, with no match at all, by time.
 */
export function alignToCommitted(words: WordTiming[], committed: WordTiming[]): number {
  const n = committed.length;
  if (n === 0) return 0;
  if (words.length >= n && committed.every((c, i) => same(c, words[i]!))) return n;
  let best = -1;
  let bestScore = 0;
  for (let j = Math.max(1, n - 3); j <= Math.min(words.length, n + 3); j++) {
    let score = 0;
    for (let i = 1; i <= Math.min(3, n, j); i++) if (same(words[j - i]!, committed[n - i]!)) score += i === 1 ? 1.5 : 1;
    if (score > bestScore || (score === bestScore && score > 0 && Math.abs(j - n) < Math.abs(best - n))) {
      best = j;
      bestScore = score;
    }
  }
  if (best >= 0) return best;
  const last = committed[n - 1]!;
  let k = 0;
  while (k < words.length && (words[k]!.start + words[k]!.end) / 2 <= last.end) k++;
  return k;
}

/** Letters and digits in `words` (how much text a decode holds, whatever its spelling of numbers). */
export function textLength(words: WordTiming[]): number {
  return words.reduce((n, w) => n + normalizeWord(w.word).length, 0);
}

/**
 * Adjacent word pairs of `words` (compared as `normalizeWord` does) that occurred earlier in them:
 * how much a decode repeats itself ("to reach your route, to reach your route" repeats three). Pairs
 * of two numbers are not counted, since dictated digits repeat ("five five five").
 */
export function repeatedPairs(words: WordTiming[]): number {
  const seen = new Set<string>();
  let repeats = 0;
  for (let i = 1; i < words.length; i++) {
    const [a, b] = [normalizeWord(words[i - 1]!.word), normalizeWord(words[i]!.word)];
    if (a === "" || b === "" || (/^\d+$/.test(a) && /^\d+$/.test(b))) continue;
    const pair = `${a} ${b}`;
    if (seen.has(pair)) repeats++;
    else seen.add(pair);
  }
  return repeats;
}

/**
 * The words of a re-reading (`words`, in order) that stand for the committed words `moved`: those
 * `inSpan` (their middle between two buffer cuts), each edge moved by one word where the word there
 * is `moved`'s first or last and the span's own edge word is not. The times of a decode's words near
 * a cut are estimates: a first word placed early ("While" after "pier.", its middle before the cut
 * where the committed word's was after it) would otherwise be left out, and lost, or the word
 * before the cut taken in, and shown twice.
 */
export function readingOf(words: WordTiming[], inSpan: (w: WordTiming) => boolean, moved: WordTiming[]): WordTiming[] {
  let i0 = words.findIndex(inSpan);
  if (i0 < 0 || moved.length === 0) return words.filter(inSpan);
  let i1 = words.length;
  while (i1 > i0 && !inSpan(words[i1 - 1]!)) i1--;
  const is = (i: number, m: WordTiming) => i >= 0 && i < words.length && normalizeWord(m.word) !== "" && same(words[i]!, m);
  const first = moved[0]!;
  const last = moved[moved.length - 1]!;
  if (!is(i0, first)) {
    if (is(i0 - 1, first)) i0--;
    else if (i0 + 1 < i1 && is(i0 + 1, first)) i0++;
  }
  if (!is(i1 - 1, last)) {
    if (is(i1, last)) i1++;
    else if (i1 - 2 >= i0 && is(i1 - 2, last)) i1--;
  }
  return words.slice(i0, i1);
}
