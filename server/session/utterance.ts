/** A recognition result as a transcript utterance (session times, rounded, confidences clamped to [0, 1]). */
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import type { TranscribeResult } from "../../workers/contract/types.ts";
import type { AppliedOptions } from "../options/defaults.ts";
import { round3 } from "./messages.ts";
import type { StreamView } from "./stream-types.ts";

export function toUtterance(options: AppliedOptions, r: TranscribeResult, channel: number, start: number, end: number): Utterance {
  const language = r.language || options.language_config.languages[0] || "";
  const text = r.text.trim();
  const words = r.words.length > 0 ? r.words : text !== "" ? [{ word: text, start: 0, end: end - start, confidence: r.confidence }] : [];
  return {
    start: round3(start),
    end: round3(end),
    confidence: round3(clamp01(r.confidence)),
    channel,
    words: monotonic(words.map((w) => ({ word: w.word, start: round3(start + w.start), end: round3(start + w.end), confidence: round3(clamp01(w.confidence)) }))),
    text,
    language,
  };
}

/**
 * The utterance with no word starting before `floor` (session s, the end of the channel's last
 * delivered word): utterances padded with the same audio overlap, and two alignments may both
 * claim the few milliseconds between one's last word and the next one's first.
 */
export function wordsFrom(u: Utterance, floor: number): Utterance {
  if (!u.words.some((w) => w.start < floor)) return u;
  return { ...u, words: u.words.map((w) => (w.start < floor ? { ...w, start: floor, end: Math.max(w.end, floor) } : w)) };
}

/** Words in order, none starting before the one before it ends (committed words and a tail come from different decodes). */
function monotonic(words: Utterance["words"]): Utterance["words"] {
  let floor = -Infinity;
  return words.map((w) => {
    const start = Math.max(w.start, floor);
    floor = Math.max(w.end, start);
    return start === w.start ? w : { ...w, start, end: floor };
  });
}

/** A streamed view as an engine result (times from the utterance start). */
export function viewResult(v: StreamView): TranscribeResult {
  return { text: v.text, language: v.language, confidence: v.confidence, words: v.words, noSpeech: v.text === "" };
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
