/**
 * Turns sampled Whisper tokens into timed segments and words, and computes the gzip
 * compression ratio used to reject repetitive (hallucinated) output; where the next window starts.
 */
import { deflateSync } from "node:zlib";
import type { WordTiming } from "../types.ts";
import type { WhisperTokenizer } from "../../tokenizer/whisper.ts";
import { WHISPER_CHUNK_SAMPLES, WHISPER_SAMPLE_RATE } from "../../dsp/whisper-mel.ts";
import { type TokenTimes, tameWords } from "./word-times.ts";

export interface TimedSegment {
  start: number;
  end: number;
  text: string;
  words: WordTiming[];
}

/** Languages written without spaces between words: each token is timed on its own. */
const NO_SPACE_LANGUAGES = new Set(["zh", "ja", "th", "lo", "my", "yue"]);

/** Ratio of UTF-8 length to zlib-compressed length (openai/whisper's `compression_ratio`). */
export function compressionRatio(text: string): number {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length === 0) return 0;
  return bytes.length / deflateSync(bytes).length;
}

/**
 * Splits tokens into segments at timestamp tokens. A segment is opened by a timestamp and closed
 * by the next one; text after the last timestamp runs to `windowEnd`, and no time goes past it (the
 * audio's end). Times are offset by `offset`.
 * Without any timestamp, the whole text is one segment over [0, windowEnd].
 * With `times` (the window's text tokens timed by `WhisperAligner`, window-relative) a word runs
 * from its first spoken token's start to its last one's end (punctuation takes no time of its
 * own, as in openai-whisper's merged punctuation); without, segments are shared among their words
 * in proportion to their spoken length.
 */
export function tokensToSegments(
  tokenizer: WhisperTokenizer,
  tokens: readonly number[],
  logprobs: readonly number[],
  offset: number,
  windowEnd: number,
  language: string,
  times: TokenTimes | null = null,
): TimedSegment[] {
  const segments: TimedSegment[] = [];
  let start: number | null = null;
  let textTokens: number[] = [];
  let textLogprobs: number[] = [];
  /** Index of the segment's first text token among the window's. */
  let first = 0;
  let seen = 0;
  const close = (end: number) => {
    if (textTokens.length > 0) {
      const s = start ?? 0;
      const at = (xs: number[]) => xs.slice(first, first + textTokens.length).map((x) => offset + Math.min(x, windowEnd));
      const own = times ? { start: at(times.start), end: at(times.end) } : null;
      const seg = buildSegment(tokenizer, textTokens, textLogprobs, offset + s, offset + Math.max(end, s), language, own);
      if (seg.text !== "") segments.push(seg);
    }
    first = seen;
    textTokens = [];
    textLogprobs = [];
  };
  tokens.forEach((t, i) => {
    if (tokenizer.isTimestamp(t)) {
      // Whisper may place a timestamp past the end of a short window's audio (in its padding).
      const time = Math.min(tokenizer.timestampSeconds(t), windowEnd);
      if (start === null || textTokens.length === 0) {
        start = time;
      } else {
        close(time);
        start = null;
      }
    } else if (t < tokenizer.eot) {
      textTokens.push(t);
      textLogprobs.push(logprobs[i] ?? 0);
      seen++;
    }
  });
  close(windowEnd);
  if (times) tameWords(segments, offset);
  return segments;
}

function buildSegment(
  tk: WhisperTokenizer,
  tokens: number[],
  logprobs: number[],
  start: number,
  end: number,
  language: string,
  times: TokenTimes | null,
): TimedSegment {
  // Group tokens into words: a token starting with a space opens a new word (per token for
  // languages without spaces); bytes of a split character stay with their word.
  const groups: { bytes: number[]; lps: number[]; from: number; to: number; spoken: number[] }[] = [];
  const perToken = NO_SPACE_LANGUAGES.has(language);
  const decoder = new TextDecoder();
  for (let i = 0; i < tokens.length; i++) {
    const bytes = Array.from(tk.bpe.tokenBytes(tokens[i]));
    const cur = groups[groups.length - 1];
    const continuesChar = cur !== undefined && !isCompleteUtf8(cur.bytes);
    const opensWord = perToken || bytes[0] === 0x20;
    const spoken = /[\p{L}\p{N}]/u.test(decoder.decode(new Uint8Array(bytes))) || !isCompleteUtf8(bytes);
    if (cur === undefined || (opensWord && !continuesChar)) groups.push({ bytes, lps: [logprobs[i]], from: i, to: i, spoken: spoken ? [i] : [] });
    else {
      cur.bytes.push(...bytes);
      cur.lps.push(logprobs[i]);
      cur.to = i;
      if (spoken) cur.spoken.push(i);
    }
  }
  const words = groups
    .map((g) => ({ text: decoder.decode(new Uint8Array(g.bytes)).trim(), lps: g.lps, g }))
    .filter((w) => w.text !== "");
  if (times) {
    const timed = words.map(({ text, lps, g }) => {
      const [a, b] = g.spoken.length > 0 ? [g.spoken[0]!, g.spoken[g.spoken.length - 1]!] : [g.from, g.to];
      return { word: text, start: times.start[a]!, end: Math.max(times.start[a]!, times.end[b]!), confidence: round(Math.exp(lps.reduce((x, y) => x + y, 0) / lps.length)) };
    });
    return { start: round(start), end: round(end), text: tk.decode(tokens).trim(), words: timed };
  }
  const weights = words.map((w) => spokenWeight(w.text));
  const total = weights.reduce((n, x) => n + x, 0);
  const timed: WordTiming[] = [];
  let cursor = start;
  for (const [i, w] of words.entries()) {
    const share = total > 0 ? ((end - start) * weights[i]!) / total : 0;
    const mean = w.lps.reduce((a, b) => a + b, 0) / w.lps.length;
    timed.push({ word: w.text, start: round(cursor), end: round(cursor + share), confidence: round(Math.exp(mean)) });
    cursor += share;
  }
  const text = tk.decode(tokens).trim();
  return { start: round(start), end: round(end), text, words: timed };
}

/**
 * How long a word takes to say, relative to the others of its segment: its letters, each digit as
 * a short word ("415" is said as three words, in about as long as "four one five" is written), and
 * one for the gap before it. Word times are interpolated in proportion (the model gives segment
 * times only); by letters alone a run of digits got a fraction of its time.
 */
export function spokenWeight(word: string): number {
  let weight = 1;
  for (const ch of word) {
    if (/\p{N}/u.test(ch)) weight += 4;
    else if (/\p{L}/u.test(ch)) weight += 1;
  }
  return weight;
}

function isCompleteUtf8(bytes: number[]): boolean {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const len = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    if (i + len > bytes.length) return false;
    i += len;
  }
  return true;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** openai/whisper's seek: resume at the last timestamp unless the window ended on a lone timestamp. */
export function seekAdvance(tokenizer: WhisperTokenizer, tokens: number[], windowSamples: number): number {
  const n = tokens.length;
  const lone = n >= 2 && !tokenizer.isTimestamp(tokens[n - 2]) && tokenizer.isTimestamp(tokens[n - 1]);
  let lastPair = -1;
  for (let i = 1; i < n; i++) if (tokenizer.isTimestamp(tokens[i]) && tokenizer.isTimestamp(tokens[i - 1])) lastPair = i;
  if (windowSamples < WHISPER_CHUNK_SAMPLES || lone || lastPair < 0) return windowSamples;
  const samples = Math.round(tokenizer.timestampSeconds(tokens[lastPair]) * WHISPER_SAMPLE_RATE);
  return samples > 0 ? samples : windowSamples;
}
