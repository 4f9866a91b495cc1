/**
 * The `end_of_turn` add-on of a live session: per channel, an end-of-turn detection (the turn model
 * behind a VAD stream of its own, built by the composition root) fed with the channel's 16 kHz audio.
 * Its results become `end_of_turn` messages, and `end_of_turn_score` messages when `emit_scores` is
 * set. The detection runs beside recognition: it never delays a transcript, and a failure is logged
 * and ends nothing.
 */
import type { Logger } from "../log.ts";
import type { Enricher } from "./enrich.ts";
import type { TurnEnd, TurnEvent, TurnScore } from "../../common/turn-events.ts";

export type { TurnEnd, TurnEvent, TurnScore };

/** The detection of one channel: audio in (session time of its first sample), events out in stream order. */
export interface TurnChannel {
  push(samples: Float32Array, time: number): Promise<TurnEvent[]>;
  /** Frees what the detection holds (its VAD stream); called once, after its last push. */
  close(): void;
}

export interface EndOfTurnOptions {
  channels: TurnChannel[];
  emitScores: boolean;
  onEvent: (event: TurnEvent) => void;
  log: Logger;
}

export class EndOfTurnEnricher implements Enricher {
  readonly name = "end_of_turn";
  private readonly chains: Promise<void>[];
  private closed = false;

  constructor(private readonly opts: EndOfTurnOptions) {
    this.chains = opts.channels.map(() => Promise.resolve());
  }

  /** Mono 16 kHz audio of one channel; `time` is the session time of its first sample. */
  onAudio(channel: number, samples: Float32Array, time: number): void {
    const ch = this.opts.channels[channel];
    if (!ch || this.closed || samples.length === 0) return;
    const copy = samples.slice();
    this.chains[channel] = this.chains[channel]!
      .then(async () => {
        for (const e of await ch.push(copy, time)) this.deliver(e);
      })
      .catch((err) => this.opts.log.error("end-of-turn detection failed", { channel, err }));
  }

  /** Resolves once every piece of audio handed in has been evaluated (before `end_recording`). */
  async finish(): Promise<void> {
    await Promise.all(this.chains);
  }

  /** Ends the detection: each channel is closed once the audio already handed in is evaluated. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.opts.channels.forEach((ch, c) => {
      void this.chains[c]!.then(() => ch.close());
    });
  }

  private deliver(e: TurnEvent): void {
    if (this.closed || (e.type === "score" && !this.opts.emitScores)) return;
    this.opts.onEvent(e);
  }
}
