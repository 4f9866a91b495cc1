/**
 * The `end_of_turn` add-on of a live session: one end-of-turn detector per channel, fed with the
 * channel's 16 kHz audio and its speech events in stream order, asking the turn model (Smart Turn)
 * whether the speaker finished. Its results become `end_of_turn` messages, and `end_of_turn_score`
 * messages when `emit_scores` is set. The detection runs beside recognition: it never delays a
 * transcript, and a failure of the model is logged and ends nothing.
 */
import type { EndOfTurnDefaults } from "../../generated/openapi/types.gen.ts";
import { EndOfTurnDetector, type SmartTurn, type TurnEvent } from "../../workers/engines/turn/index.ts";
import type { Logger } from "../log.ts";

export interface EndOfTurnOptions {
  model: SmartTurn;
  settings: Required<EndOfTurnDefaults>;
  channels: number;
  /** Receives each turn end, and each evaluation when `settings.emit_scores` is true. */
  onEvent: (event: TurnEvent) => void;
  log: Logger;
}

export class EndOfTurnEnricher {
  readonly name = "end_of_turn";
  private readonly detectors: EndOfTurnDetector[];
  private readonly chains: Promise<void>[];
  private closed = false;

  constructor(private readonly opts: EndOfTurnOptions) {
    const predict = (audio: Float32Array) => opts.model.predict(audio);
    this.detectors = Array.from({ length: opts.channels }, (_, c) => new EndOfTurnDetector(c, opts.settings, predict, { vadGated: true }));
    this.chains = this.detectors.map(() => Promise.resolve());
  }

  /** Mono 16 kHz audio of one channel; `time` is the session time of its first sample. */
  onAudio(channel: number, samples: Float32Array, time: number): void {
    const d = this.detectors[channel];
    if (!d || this.closed) return;
    const copy = samples.slice();
    this.enqueue(channel, async () => {
      for (const e of await d.push(copy, time)) this.deliver(e);
    });
  }

  /** A speech event of the channel's voice-activity detector (session time). */
  onSpeech(channel: number, type: "speech_start" | "speech_end", time: number): void {
    const d = this.detectors[channel];
    if (!d || this.closed) return;
    this.enqueue(channel, async () => (type === "speech_start" ? d.speechStart(time) : d.speechEnd(time)));
  }

  /** Resolves once every piece of audio handed in has been evaluated. */
  async finish(): Promise<void> {
    await Promise.all(this.chains);
  }

  close(): void {
    this.closed = true;
  }

  private enqueue(channel: number, work: () => Promise<void>): void {
    this.chains[channel] = this.chains[channel]!.then(work).catch((err) => this.opts.log.error("end-of-turn detection failed", { channel, err }));
  }

  private deliver(e: TurnEvent): void {
    if (this.closed) return;
    if (e.type === "score" && !this.opts.settings.emit_scores) return;
    this.opts.onEvent(e);
  }
}
