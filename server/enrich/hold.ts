/**
 * Number hold: a final whose text ends inside a spoken number ("my card number is four one one
 * one") is held, per channel, for up to `NUMBER_HOLD_S` of audio. When the channel's next final
 * begins with a number and starts at most that long after the held one ends (the speaker did not
 * pause longer than the hold), the two become one final (the held utterance's id, its start, the
 * later end, the words of both, the lower confidence); otherwise the held final is released
 * unchanged, before the next one. `turn_router: true` turns the hold off (a downstream turn router
 * decides).
 *
 * Time is audio time, never the wall clock: a held final is released once the audio shows it cannot
 * be continued (the next utterance starts later than the hold, or the channel's audio runs past
 * the hold without a new utterance), or once the next utterance's partial shows it does not begin
 * with a number, so whether two finals join does not depend on how long recognition takes. While
 * no audio arrives, a held final waits (the session's end releases it).
 */
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { endsInsideNumber, startsWithNumber } from "./number-words.ts";
import { concatSamples } from "../audio/samples.ts";

/** Longest pause (s of audio) across which a number is joined. */
const NUMBER_HOLD_S = 1.2;
/**
 * Audio (s) past the hold, with no new utterance seen, before a held final is released: a speech
 * start is confirmed only after some speech (the endpointer's 150 ms plus its padding).
 */
const SPEECH_CONFIRM_S = 0.3;

export interface HeldFinal<T = unknown> {
  id: string;
  utterance: Utterance;
  /** What the caller tracks per recognized final (e.g. its pending acknowledgment); merged finals carry both. */
  tokens?: T[];
  /** The utterance's mono 16 kHz audio (audio add-ons such as diarization read it); merged finals carry both parts. */
  audio?: Float32Array;
}

function joinAudio(a: Float32Array | undefined, b: Float32Array | undefined): Float32Array | undefined {
  return a && b ? concatSamples([a, b]) : (a ?? b);
}

/** Joins a held final and the final that completes its number. */
export function mergeFinals<T>(held: HeldFinal<T>, next: HeldFinal<T>): HeldFinal<T> {
  const a = held.utterance;
  const b = next.utterance;
  const text = `${a.text.replace(/[.,;:]+$/, "")} ${b.text}`.trim();
  const lastA = a.words[a.words.length - 1];
  const words = [...a.words.slice(0, -1), ...(lastA ? [{ ...lastA, word: lastA.word.replace(/[.,;:]+$/, "") }] : []), ...b.words].filter((w) => w.word.trim() !== "");
  const audio = joinAudio(held.audio, next.audio);
  return {
    id: held.id,
    tokens: [...(held.tokens ?? []), ...(next.tokens ?? [])],
    ...(audio ? { audio } : {}),
    utterance: { ...a, end: b.end, confidence: Math.min(a.confidence, b.confidence), words, text },
  };
}

/**
 * Holds finals of one session. `offer` returns the finals to deliver now, in order. `advance` tells
 * how far the audio has gone; when a held final can no longer be continued, `release` is told, and
 * the caller takes the final back with `expire` in its delivery order (a final queued meanwhile is
 * offered first and releases the held one ahead of itself).
 */
export class NumberHold<T = unknown> {
  private readonly held = new Map<number, HeldFinal<T>>();
  private readonly released = new WeakSet<HeldFinal<T>>();

  constructor(
    private readonly release: (final: HeldFinal<T>) => void,
    private readonly holdS = NUMBER_HOLD_S,
  ) {}

  /** Offers a final; returns those to deliver now. */
  offer(final: HeldFinal<T>): HeldFinal<T>[] {
    const channel = final.utterance.channel;
    const language = final.utterance.language;
    const out: HeldFinal<T>[] = [];
    let current = final;
    const pending = this.held.get(channel);
    if (pending) {
      this.held.delete(channel);
      const gap = current.utterance.start - pending.utterance.end;
      if (gap <= this.holdS && startsWithNumber(current.utterance.text, language)) current = mergeFinals(pending, current);
      else out.push(pending);
    }
    if (endsInsideNumber(current.utterance.text, language)) this.held.set(channel, current);
    else out.push(current);
    return out;
  }

  /**
   * The audio of `channel` is known up to session time `audioEnd` (s); `nextStart` is the start of
   * the channel's next utterance after the held final (open, or being recognized), null when none
   * has begun. Releases the held final when that utterance starts beyond the hold, or when none has
   * begun and the audio is past the hold.
   */
  advance(channel: number, audioEnd: number, nextStart: number | null): void {
    const h = this.held.get(channel);
    if (!h || this.released.has(h)) return;
    const deadline = h.utterance.end + this.holdS;
    if (nextStart !== null ? nextStart > deadline : audioEnd >= deadline + SPEECH_CONFIRM_S) {
      this.released.add(h);
      this.release(h);
    }
  }

  /**
   * The channel's next utterance, starting at session time `nextStart`, shows `text` in its first
   * partial: when that does not begin with a number, the held final cannot be continued and is
   * released at once, instead of waiting for that utterance's final (which may take as long as the
   * utterance).
   */
  heard(channel: number, nextStart: number, text: string): void {
    const h = this.held.get(channel);
    if (!h || this.released.has(h) || nextStart < h.utterance.end - 1e-6 || text.trim() === "") return;
    if (startsWithNumber(text, h.utterance.language)) return;
    this.released.add(h);
    this.release(h);
  }

  /** End (s) of the final held on `channel`, or null. */
  heldEnd(channel: number): number | null {
    return this.held.get(channel)?.utterance.end ?? null;
  }

  /** Takes back a released final; null when it was joined or delivered meanwhile. */
  expire(final: HeldFinal<T>): HeldFinal<T> | null {
    const channel = final.utterance.channel;
    if (this.held.get(channel) !== final) return null;
    this.held.delete(channel);
    return final;
  }

  /** Releases every held final (end of the session), in channel order. */
  flush(): HeldFinal<T>[] {
    const out = [...this.held.entries()].sort(([a], [b]) => a - b).map(([, h]) => h);
    this.held.clear();
    return out;
  }

  /** Seconds (session time) from which finals are still held on some channel, or null. */
  heldFrom(): number | null {
    let t: number | null = null;
    for (const h of this.held.values()) t = t === null ? h.utterance.start : Math.min(t, h.utterance.start);
    return t;
  }
}
