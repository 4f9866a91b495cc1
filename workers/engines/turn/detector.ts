/**
 * End-of-turn detection for one audio channel: a state machine fed with the channel's 16 kHz audio
 * and its voice-activity events, which asks the turn model whether the speaker has finished.
 *
 * Semantics of the settings (EndOfTurnConfig):
 * - audio is judged in 10 ms blocks; a block is speech when its level is at or above `speech_dbfs`
 *   and the voice-activity detector hears voice (`voice()` per VAD chunk, or `speechStart` /
 *   `speechEnd` events); anything else is silence;
 * - a turn begins with the first speech after the previous turn ended; a "turn" of less than
 *   150 ms of speech (a click, a cough) is dropped when its silence would be evaluated;
 * - once the current silence has lasted `silence_ms`, the turn is evaluated: the model reads the
 *   `window_s` seconds of audio before the silence plus the silence so far (at most its last 8 s);
 * - the silence is evaluated again every `reeval_ms` while it lasts (`reeval_ms` 0: once per silence);
 * - an evaluation whose probability is above `threshold` ends the turn (reason `model`);
 * - a silence that reaches `stop_s` ends the turn whatever the probability (reason `timeout`,
 *   probability of the last evaluation of that silence, or null);
 * - speech during the silence cancels it: the turn goes on and the next silence is evaluated anew.
 * Every evaluation yields a score (sent as `end_of_turn_score` when `emit_scores` is set).
 *
 * Times are seconds on the caller's clock (the session's), given with the audio pushed.
 */

import type { TurnEnd, TurnEvent, TurnScore } from "../../../common/turn-events.ts";

export type { TurnEnd, TurnEvent, TurnScore };

export interface EndOfTurnSettings {
  threshold: number;
  silence_ms: number;
  stop_s: number;
  window_s: number;
  speech_dbfs: number;
  reeval_ms: number;
}

/** Probability (0..1) that the speaker finished, from 16 kHz audio ending at the evaluation. */
export type TurnPredictor = (audio: Float32Array) => Promise<number>;

const SAMPLE_RATE = 16000;
const BLOCK = 160; // 10 ms
const BLOCK_S = BLOCK / SAMPLE_RATE;
/** Least speech in a turn for its silence to be evaluated. */
const MIN_TURN_SPEECH_S = 0.15;
/** Audio kept: the model never reads more than 8 s. */
const KEEP_SAMPLES = 8 * SAMPLE_RATE;

/** Level of a block in dBFS (RMS relative to full scale 1.0); −Infinity for digital silence. */
function blockDbfs(block: Float32Array): number {
  let sq = 0;
  for (let i = 0; i < block.length; i++) sq += block[i]! * block[i]!;
  return 10 * Math.log10(sq / Math.max(1, block.length));
}

export class EndOfTurnDetector {
  /** Ring of the last 8 s of audio; `written` counts every sample ever pushed. */
  private readonly ring = new Float32Array(KEEP_SAMPLES);
  private written = 0;
  /** Session time of sample 0 of the stream. */
  private origin: number | null = null;
  private pending = new Float32Array(0);

  private vadSpeaking: boolean;
  private inTurn = false;
  private speechSeconds = 0;
  /** End time of the last speech block of the turn. */
  private lastSpeech = 0;
  /** Evaluations of the current silence: time of the last one and its probability. */
  private lastEvalAt: number | null = null;
  private lastProbability: number | null = null;

  /**
   * `vadGated`: the caller reports voice activity (`speechStart`/`speechEnd`); until the first
   * `speechStart`, audio counts as silence. Without it, the level alone tells speech from silence.
   */
  constructor(
    readonly channel: number,
    private readonly settings: EndOfTurnSettings,
    private readonly predict: TurnPredictor,
    opts: { vadGated?: boolean } = {},
  ) {
    this.vadSpeaking = !opts.vadGated;
  }

  /** Whether the voice-activity detector hears voice in the audio pushed next (per VAD chunk). */
  voice(speaking: boolean): void {
    this.vadSpeaking = speaking;
  }

  /** The voice-activity detector heard speech start at `time` (possibly before audio already pushed). */
  speechStart(time: number): void {
    this.vadSpeaking = true;
    const now = this.now();
    if (!this.inTurn) {
      this.inTurn = true;
      this.speechSeconds = 0;
    }
    if (now !== null && time < now) {
      // the blocks since `time` were judged silence while the detector was waiting to confirm
      this.speechSeconds += Math.max(0, now - Math.max(time, this.lastSpeech));
      this.lastSpeech = now;
      this.resetSilence();
    }
  }

  /** The voice-activity detector heard speech end at `time` (reported after its own hang-over). */
  speechEnd(time: number): void {
    this.vadSpeaking = false;
    if (this.inTurn && time < this.lastSpeech) {
      this.speechSeconds = Math.max(0, this.speechSeconds - (this.lastSpeech - time));
      this.lastSpeech = time;
    }
  }

  /**
   * Appends audio that starts at session time `start` (16 kHz mono; contiguous with what came
   * before) and runs the state machine over it; evaluations are awaited in order.
   */
  async push(samples: Float32Array, start: number): Promise<TurnEvent[]> {
    if (this.origin === null) this.origin = start - this.written / SAMPLE_RATE;
    const data = new Float32Array(this.pending.length + samples.length);
    data.set(this.pending);
    data.set(samples, this.pending.length);
    const events: TurnEvent[] = [];
    let i = 0;
    for (; i + BLOCK <= data.length; i += BLOCK) {
      const block = data.subarray(i, i + BLOCK);
      this.append(block);
      await this.step(block, events);
    }
    this.pending = data.slice(i);
    return events;
  }

  private now(): number | null {
    return this.origin === null ? null : this.origin + this.written / SAMPLE_RATE;
  }

  private append(block: Float32Array): void {
    const at = this.written % KEEP_SAMPLES;
    const first = Math.min(block.length, KEEP_SAMPLES - at);
    this.ring.set(block.subarray(0, first), at);
    if (first < block.length) this.ring.set(block.subarray(first), 0);
    this.written += block.length;
  }

  /** The last `seconds` of audio (at most 8 s). */
  private lastAudio(seconds: number): Float32Array {
    const n = Math.min(this.written, KEEP_SAMPLES, Math.max(0, Math.round(seconds * SAMPLE_RATE)));
    const out = new Float32Array(n);
    const from = this.written - n;
    for (let k = 0; k < n; k++) out[k] = this.ring[(from + k) % KEEP_SAMPLES]!;
    return out;
  }

  private resetSilence(): void {
    this.lastEvalAt = null;
    this.lastProbability = null;
  }

  private async step(block: Float32Array, events: TurnEvent[]): Promise<void> {
    const now = this.now()!;
    const s = this.settings;
    if (this.vadSpeaking && blockDbfs(block) >= s.speech_dbfs) {
      if (!this.inTurn) {
        this.inTurn = true;
        this.speechSeconds = 0;
      }
      this.speechSeconds += BLOCK_S;
      this.lastSpeech = now;
      this.resetSilence();
      return;
    }
    if (!this.inTurn) return;
    const silence = now - this.lastSpeech;
    if (silence + 1e-9 >= s.stop_s) {
      this.endTurn(events, this.lastProbability, "timeout");
      return;
    }
    if (silence * 1000 + 1e-6 < s.silence_ms) return;
    if (this.speechSeconds < MIN_TURN_SPEECH_S) {
      this.inTurn = false;
      this.speechSeconds = 0;
      this.resetSilence();
      return;
    }
    const due = this.lastEvalAt === null || (s.reeval_ms > 0 && (now - this.lastEvalAt) * 1000 + 1e-6 >= s.reeval_ms);
    if (!due) return;
    const probability = await this.predict(this.lastAudio(s.window_s + silence));
    this.lastEvalAt = now;
    this.lastProbability = probability;
    const ended = probability > s.threshold;
    events.push({
      type: "score", channel: this.channel, probability, threshold: s.threshold,
      silence_ms: Math.round(silence * 1000), time: round(now), ended,
    });
    if (ended) this.endTurn(events, probability, "model");
  }

  private endTurn(events: TurnEvent[], probability: number | null, reason: "model" | "timeout"): void {
    events.push({
      type: "end", channel: this.channel, probability, reason,
      end: round(this.lastSpeech), speech_duration: round(this.speechSeconds),
    });
    this.inTurn = false;
    this.speechSeconds = 0;
    this.resetSilence();
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;
