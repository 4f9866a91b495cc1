/**
 * The lead of a short final: the channel's latest recognized utterances (their audio and their
 * text as recognized), heard before the utterance in one window (`TranscribeRequest.lead`). Whisper
 * decoding a turn of a word or two alone mishears it far more often than it does inside the
 * recording around it ("Two." as "Do", "Seven three nine." as "Seven free items"); the lead gives
 * it that context. Measured per model in bench/README.md (fidelity).
 */
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { FRONTEND_SAMPLE_RATE } from "../audio/frontend.ts";
import { concatSamples } from "../audio/samples.ts";
import { inContext, previousText } from "./context.ts";

/** Utterances this long or shorter (s, padding included) are decoded after a lead. */
export const LEAD_MAX_UTTERANCE_S = 4;
/** The lead starts at most this long (s) before the utterance. */
const LEAD_SPAN_S = 8;
/** Silence between two utterances of a lead is kept up to this long (s). */
const LEAD_GAP_S = 1.5;

interface Heard {
  start: number;
  end: number;
  audio: Float32Array;
  text: string;
  /** The language it was recognized in ("" when unknown). */
  language: string;
}

/** A lead as a decode job sends it: audio before the utterance, its transcript, the text before it. */
export interface LeadContext {
  audio: Float32Array;
  text: string;
  /** Where each utterance lies in `audio` (s) and its text. */
  segments: { start: number; end: number; text: string }[];
  previousText: string;
  /** The language of `text` and `previousText` (undefined when unknown). */
  language: string | undefined;
}

export class LeadAudio {
  /** Per channel: the latest recognized finals, in utterance order. */
  private readonly recent = new Map<number, Heard[]>();

  /** A final recognized on `channel` (`text` empty when it was dropped as no speech). */
  heard(channel: number, start: number, end: number, audio: Float32Array, text: string, language = ""): void {
    const list = this.recent.get(channel) ?? [];
    list.push({ start, end, audio, text: text.trim(), language });
    list.sort((a, b) => a.start - b.start); // recognized out of order at times (a streamed final)
    while (list.length > 0 && list[0]!.end < end - LEAD_SPAN_S) list.shift();
    this.recent.set(channel, list);
  }

  /**
   * The lead of an utterance starting at `start` (session s) on `channel`: the recognized finals
   * right before it that have text, starting at most LEAD_SPAN_S before it, with the silences
   * between them (shortened to LEAD_GAP_S) and without the audio two of them share, back to one in
   * another language than the latest (`inContext`); undefined when there are none, or the final right
   * before it is not recognized yet (`unrecognizedBefore`).
   */
  leadFor(channel: number, start: number, heard: readonly Utterance[], unrecognizedBefore: boolean): LeadContext | undefined {
    if (unrecognizedBefore) return undefined;
    const list = (this.recent.get(channel) ?? []).filter((h) => h.start < start - 1e-6);
    const parts: Heard[] = [];
    const language = list[list.length - 1]?.language || undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      const h = list[i]!;
      if (h.text === "" || start - h.start > LEAD_SPAN_S || !inContext(h, language)) break;
      parts.unshift(h);
    }
    const first = parts[0];
    if (!first) return undefined;
    const pieces: Float32Array[] = [];
    const segments: LeadContext["segments"] = [];
    let at = 0;
    parts.forEach((h, i) => {
      const next = parts[i + 1]?.start ?? start;
      // Utterances padded with the same audio overlap: what the next one holds is left to it.
      const overlap = Math.max(0, Math.round((h.end - next) * FRONTEND_SAMPLE_RATE));
      const own = h.audio.subarray(0, Math.max(0, h.audio.length - overlap));
      const gap = new Float32Array(Math.round(Math.min(LEAD_GAP_S, Math.max(0, next - h.end)) * FRONTEND_SAMPLE_RATE));
      segments.push({ start: at / FRONTEND_SAMPLE_RATE, end: (at + own.length) / FRONTEND_SAMPLE_RATE, text: h.text });
      pieces.push(own, gap);
      at += own.length + gap.length;
    });
    const audio = concatSamples(pieces);
    const before = heard.filter((u) => u.channel !== channel || u.start < first.start - 1e-6);
    return { audio, text: parts.map((h) => h.text).join(" "), segments, previousText: previousText(before, channel, language), language };
  }
}
