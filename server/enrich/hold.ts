/**
 * Number hold: a final whose text ends inside a spoken number ("my card number is four one one
 * one") is held, per channel, for up to `holdMs`. When the channel's next final arrives within that
 * time, begins with a number and starts at most `holdMs` of audio after the held one ends (the
 * speaker did not pause longer than the hold), the two become one final (the held utterance's id, its start, the
 * later end, the words of both, the lower confidence); otherwise the held final is released unchanged,
 * before the next one. `turn_router: true` turns the hold off (a downstream turn router decides).
 */
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { endsInsideNumber, startsWithNumber } from "./number-words.ts";

export const NUMBER_HOLD_MS = 1200;

export interface HeldFinal<T = unknown> {
  id: string;
  utterance: Utterance;
  /** What the caller tracks per recognized final (e.g. its pending acknowledgment); merged finals carry both. */
  tokens?: T[];
  /** The utterance's mono 16 kHz audio (audio add-ons such as diarization read it); merged finals carry both parts. */
  audio?: Float32Array;
}

function joinAudio(a: Float32Array | undefined, b: Float32Array | undefined): Float32Array | undefined {
  if (!a || !b) return a ?? b;
  const out = new Float32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
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
 * Holds finals of one session. `offer` returns the finals to deliver now, in order. When a hold times
 * out, `timedOut` is told; the caller then takes the final back with `expire` in its delivery order
 * (a final queued before the timeout is offered first and releases the held one ahead of itself).
 * Timers are the caller's (`schedule`), so tests can drive time.
 */
export class NumberHold<T = unknown> {
  private readonly held = new Map<number, { final: HeldFinal<T>; cancel: () => void }>();

  constructor(
    private readonly timedOut: (final: HeldFinal<T>) => void,
    private readonly schedule: (ms: number, fn: () => void) => () => void = (ms, fn) => {
      const t = setTimeout(fn, ms);
      return () => clearTimeout(t);
    },
    private readonly holdMs = NUMBER_HOLD_MS,
  ) {}

  /** Offers a final; returns those to deliver now. */
  offer(final: HeldFinal<T>): HeldFinal<T>[] {
    const channel = final.utterance.channel;
    const language = final.utterance.language;
    const out: HeldFinal<T>[] = [];
    let current = final;
    const pending = this.held.get(channel);
    if (pending) {
      pending.cancel();
      this.held.delete(channel);
      const gap = current.utterance.start - pending.final.utterance.end;
      if (gap <= this.holdMs / 1000 && startsWithNumber(current.utterance.text, language)) current = mergeFinals(pending.final, current);
      else out.push(pending.final);
    }
    if (endsInsideNumber(current.utterance.text, language)) {
      const cancel = this.schedule(this.holdMs, () => {
        if (this.held.get(channel)?.final === current) this.timedOut(current);
      });
      this.held.set(channel, { final: current, cancel });
    } else out.push(current);
    return out;
  }

  /** Takes back a final whose hold timed out; null when it was released or joined meanwhile. */
  expire(final: HeldFinal<T>): HeldFinal<T> | null {
    const channel = final.utterance.channel;
    if (this.held.get(channel)?.final !== final) return null;
    this.held.delete(channel);
    return final;
  }

  /** Releases every held final (end of the session), in channel order. */
  flush(): HeldFinal<T>[] {
    const out = [...this.held.entries()].sort(([a], [b]) => a - b).map(([, h]) => {
      h.cancel();
      return h.final;
    });
    this.held.clear();
    return out;
  }

  /** Seconds (session time) from which finals are still held on some channel, or null. */
  heldFrom(): number | null {
    let t: number | null = null;
    for (const h of this.held.values()) t = t === null ? h.final.utterance.start : Math.min(t, h.final.utterance.start);
    return t;
  }
}
