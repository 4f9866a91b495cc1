/**
 * A short utterance decoded after a lead (`TranscribeRequest.lead`): the stream's latest
 * utterances go first in the window and their transcript (each utterance between its timestamps,
 * where the lead gives them) is forced as the decode's prefix, so the
 * model hears the new words in the context it would have in a recording decoded whole (a lone
 * "Two." heard as "Do", "Seven three nine" as "Seven free items"). What follows the prefix is the
 * utterance's text; word times come from the alignment of prefix and text together.
 */
import { WHISPER_CHUNK_SAMPLES, WHISPER_SAMPLE_RATE } from "../../dsp/whisper-mel.ts";
import type { WhisperTokenizer } from "../../tokenizer/whisper.ts";
import type { TranscribeRequest } from "../types.ts";
import type { TokenTimes } from "./word-times.ts";
import type { TimedSegment } from "./segments.ts";

/** Most prefix tokens: the lead's text beyond them is not forced (the lead is dropped instead). */
const MAX_LEAD_TOKENS = 96;

export interface Lead {
  /** Samples of the request's audio before the utterance. */
  samples: number;
  seconds: number;
  /** The forced prefix: the lead's transcript, each utterance between its timestamps where the lead places them. */
  tokens: number[];
  /** The prefix's text tokens (the alignment's), without timestamps. */
  textTokens: number[];
  /** The prefix has timestamps: the window is decoded with them, its first new one no earlier than the lead's end. */
  timed: boolean;
  text: string;
}

/**
 * The request's lead when it can be used: the lead and the utterance fit one 30-s window, the
 * utterance has audio, and the transcript has words and fits the prefix budget. Null otherwise
 * (the request is then decoded without it).
 */
export function usableLead(tokenizer: WhisperTokenizer, req: TranscribeRequest): Lead | null {
  const lead = req.lead;
  if (!lead) return null;
  const samples = Math.floor(lead.samples);
  const text = lead.text.trim();
  if (!(samples > 0 && samples < req.audio.length) || req.audio.length > WHISPER_CHUNK_SAMPLES || !/[\p{L}\p{N}]/u.test(text)) return null;
  const seconds = samples / WHISPER_SAMPLE_RATE;
  const segments = (lead.segments ?? []).filter((s) => /[\p{L}\p{N}]/u.test(s.text));
  const timed = segments.length > 0 && segments.every((s, i) => s.start >= (segments[i - 1]?.end ?? 0) - 1e-6 && s.end >= s.start && s.end <= seconds + 1e-6);
  const stamp = (t: number) => tokenizer.timestampBegin + Math.round(Math.min(t, seconds) / 0.02);
  const parts = timed ? segments.map((s) => ({ text: tokenizer.encode(` ${s.text.trim()}`), from: stamp(s.start), to: stamp(s.end) })) : [{ text: tokenizer.encode(` ${text}`), from: -1, to: -1 }];
  const textTokens = parts.flatMap((p) => p.text);
  if (textTokens.length > MAX_LEAD_TOKENS) return null;
  const tokens = timed ? parts.flatMap((p) => [p.from, ...p.text, p.to]) : textTokens;
  return { samples, seconds, tokens, textTokens, timed, text };
}

/** Token times of the text after the prefix (the alignment ran over prefix and text). */
export function afterPrefix(times: TokenTimes | null, prefix: number): TokenTimes | null {
  return times && { start: times.start.slice(prefix), end: times.end.slice(prefix) };
}

/**
 * Segments of a led window, timed from the utterance's start: nothing before 0, no leading
 * punctuation (the text after a prefix may begin with the prefix's closing "."), and a first letter
 * in upper case (after a prefix that ends mid-sentence, "Thank you so much", the model goes on in
 * lower case, "it costs $25"; the utterance is delivered on its own, as it would be decoded alone).
 */
export function ledSegments(segments: TimedSegment[]): TimedSegment[] {
  const clamp = (t: number) => Math.max(0, t);
  const capital = (text: string) => text.replace(/^\p{Ll}/u, (c) => c.toUpperCase());
  const out = segments
    .map((s) => {
      const words = s.words.filter((w, i, all) => all.slice(0, i + 1).some((x) => /[\p{L}\p{N}]/u.test(x.word)));
      return {
        ...s,
        text: s.text.replace(/^[^\p{L}\p{N}]+/u, ""),
        start: clamp(s.start),
        end: clamp(s.end),
        words: words.map((w, i) => ({ ...w, word: i === 0 ? w.word.replace(/^[^\p{L}\p{N}]+/u, "") : w.word, start: clamp(w.start), end: clamp(w.end) })),
      };
    })
    .filter((s) => s.text !== "");
  const first = out[0];
  if (first) out[0] = { ...first, text: capital(first.text), words: first.words.map((w, i) => (i === 0 ? { ...w, word: capital(w.word) } : w)) };
  return out;
}
