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
    words: words.map((w) => ({ word: w.word, start: round3(start + w.start), end: round3(start + w.end), confidence: round3(clamp01(w.confidence)) })),
    text,
    language,
  };
}

/** A streamed view as an engine result (times from the utterance start). */
export function viewResult(v: StreamView): TranscribeResult {
  return { text: v.text, language: v.language, confidence: v.confidence, words: v.words, noSpeech: v.text === "" };
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
