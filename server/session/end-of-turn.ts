/**
 * The `end_of_turn` add-on of a live session: per channel, a Silero VAD stream of its own (so that
 * silence is known within a 32 ms chunk, not after the endpointer's hang-over) and an end-of-turn
 * detector fed with the channel's 16 kHz audio, which asks the turn model (Smart Turn) whether the
 * speaker finished. Its results become `end_of_turn` messages, and `end_of_turn_score` messages when
 * `emit_scores` is set. The detection runs beside recognition: it never delays a transcript, and a
 * failure of a model is logged and ends nothing.
 */
import type { EndOfTurnDefaults } from "../../generated/openapi/types.gen.ts";
import type { Enricher } from "./enrich.ts";
import { EndOfTurnDetector, type SmartTurn, type TurnEvent } from "../../workers/engines/turn/index.ts";
import type { SileroVad, VadStream } from "../../workers/vad/silero.ts";
import type { Logger } from "../log.ts";

/** VAD hysteresis, as the endpointer's: voice starts at 0.5 and lasts while chunks score 0.35. */
const VOICE_START = 0.5;
const VOICE_END = 0.35;

export interface EndOfTurnOptions {
  model: SmartTurn;
  vad: SileroVad;
  settings: Required<EndOfTurnDefaults>;
  channels: number;
  /** Receives each turn end, and each evaluation when `settings.emit_scores` is true. */
  onEvent: (event: TurnEvent) => void;
  log: Logger;
}

interface Channel {
  detector: EndOfTurnDetector;
  vad: VadStream;
  speaking: boolean;
  /** Samples not yet making a whole VAD chunk, and the session time of their first sample. */
  pending: Float32Array;
  pendingTime: number;
  chain: Promise<void>;
}

export class EndOfTurnEnricher implements Enricher {
  readonly name = "end_of_turn";
  private readonly channels: Channel[];
  private closed = false;

  constructor(private readonly opts: EndOfTurnOptions) {
    const predict = (audio: Float32Array) => opts.model.predict(audio);
    this.channels = Array.from({ length: opts.channels }, (_, c) => ({
      detector: new EndOfTurnDetector(c, opts.settings, predict, { vadGated: true }),
      vad: opts.vad.createStream(16000),
      speaking: false,
      pending: new Float32Array(0),
      pendingTime: 0,
      chain: Promise.resolve(),
    }));
  }

  /** Mono 16 kHz audio of one channel; `time` is the session time of its first sample. */
  onAudio(channel: number, samples: Float32Array, time: number): void {
    const ch = this.channels[channel];
    if (!ch || this.closed || samples.length === 0) return;
    if (ch.pending.length === 0) ch.pendingTime = time;
    const data = new Float32Array(ch.pending.length + samples.length);
    data.set(ch.pending);
    data.set(samples, ch.pending.length);
    const size = ch.vad.frameSamples;
    const whole = data.length - (data.length % size);
    const start = ch.pendingTime;
    ch.pending = data.slice(whole);
    ch.pendingTime = start + whole / 16000;
    if (whole === 0) return;
    const ready = data.subarray(0, whole);
    ch.chain = ch.chain
      .then(async () => {
        for (let i = 0; i < ready.length; i += size) {
          const chunk = ready.subarray(i, i + size);
          const p = await ch.vad.process(chunk);
          ch.speaking = p >= (ch.speaking ? VOICE_END : VOICE_START);
          ch.detector.voice(ch.speaking);
          for (const e of await ch.detector.push(chunk, start + i / 16000)) this.deliver(e);
        }
      })
      .catch((err) => this.opts.log.error("end-of-turn detection failed", { channel, err }));
  }

  /** Resolves once every piece of audio handed in has been evaluated. */
  async finish(): Promise<void> {
    await Promise.all(this.channels.map((c) => c.chain));
  }

  close(): void {
    this.closed = true;
  }

  private deliver(e: TurnEvent): void {
    if (this.closed) return;
    if (e.type === "score" && !this.opts.settings.emit_scores) return;
    this.opts.onEvent(e);
  }
}
