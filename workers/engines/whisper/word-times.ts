/**
 * Aligned word times made plausible, as openai-whisper and faster-whisper do after their dynamic
 * time warping: the alignment path may hand a word the silence before it (the first word after a
 * pause, or of a sentence), or after it (the last word of a segment). Words much longer than the
 * window's median are cut back, preferring the timestamp tokens' segment bounds where they
 * disagree by more than half a second.
 */
import type { WordTiming } from "../types.ts";

/** Window-relative start and end (s) of each text token of a window (`WhisperAligner.tokenTimes`). */
export interface TokenTimes {
  start: number[];
  end: number[];
}

/** Longest median word duration assumed (s), as faster-whisper. */
const MEDIAN_CAP = 0.7;
const SENTENCE_END = /[.!?。！？]$/u;

/**
 * Adjusts, in place, the aligned words of one window's segments (absolute times; the window starts
 * at `windowStart`), then rounds them to the millisecond.
 */
export function tameWords(segments: { start: number; end: number; words: WordTiming[] }[], windowStart: number): void {
  const all = segments.flatMap((s) => s.words);
  const durations = all.map((w) => w.end - w.start).filter((d) => d > 0).sort((a, b) => a - b);
  const median = durations.length > 0 ? Math.min(MEDIAN_CAP, durations[durations.length >> 1]!) : 0;
  const longest = 2 * median;
  for (const [i, w] of all.entries()) {
    const prev = all[i - 1];
    if (median > 0 && w.end - w.start > longest) {
      // a sentence's first word takes the pause before it, its last the pause after
      if (prev && SENTENCE_END.test(prev.word)) w.start = w.end - longest;
      else if (SENTENCE_END.test(w.word)) w.end = w.start + longest;
    }
  }
  let lastSpeech = windowStart;
  for (const seg of segments) {
    const words = seg.words;
    const w0 = words[0];
    const last = words[words.length - 1];
    if (!w0 || !last) continue;
    if (median > 0 && w0.end - lastSpeech > 4 * median && w0.end - w0.start > longest) {
      // the first word after a pause
      const w1 = words[1];
      if (w1 && w1.end - w1.start > longest) w0.end = w1.start = Math.max(w1.end / 2, w1.end - longest);
      w0.start = Math.max(lastSpeech, w0.end - longest);
    }
    if (seg.start < w0.end && seg.start - 0.5 > w0.start) w0.start = Math.max(windowStart, Math.min(w0.end - median, seg.start));
    if (seg.end > last.start && seg.end + 0.5 < last.end) last.end = Math.max(last.start + median, seg.end);
    lastSpeech = last.end;
  }
  let floor = windowStart;
  for (const w of all) {
    // monotonic: a word starts no earlier than the one before it ends
    w.start = round(Math.max(w.start, floor));
    w.end = round(Math.max(w.end, w.start));
    floor = w.end;
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
