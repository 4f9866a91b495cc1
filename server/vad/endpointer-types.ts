/** The endpointer's interface (`endpointer.ts`): its options, the events it emits, and the `Endpointer` itself. */

export interface EndpointerOptions {
  /** Seconds of continuous silence that end an utterance (default: the contract's `endpointing`). */
  endpointing?: number;
  /** Seconds after which an utterance is cut even without silence (default: no limit). */
  maxDurationWithoutEndpointing?: number | null;
  /** Milliseconds between `utterance_partial` events of a growing utterance (default 500; 0 = none). */
  partialIntervalMs?: number;
  /**
   * Also emit a partial as soon as a pause has lasted `speechPadMs` (once per pause, marked
   * `pause`): a recognizer can then decode the whole utterance while the endpointing window runs.
   * No interval partial is emitted while a pause runs (its audio would add only silence); the next
   * one comes as soon as speech resumes (default false).
   */
  partialOnPause?: boolean;
  /** Probability at or above which speech may start (default 0.5). */
  startThreshold?: number;
  /** Probability below which a chunk counts as silence once speaking (default 0.35). */
  endThreshold?: number;
  /** Speech needed before `speech_start` is confirmed (default 150 ms: a spoken letter can be under 200 ms). */
  minSpeechMs?: number;
  /** Silence that abandons a not-yet-confirmed start (default 100 ms). */
  candidateGapMs?: number;
  /** Padding added around detected speech in `speech_start`/`speech_end` times (default 64 ms). */
  speechPadMs?: number;
  /** Audio kept before the detected speech start in the utterance audio (default 200 ms). */
  preRollMs?: number;
  /**
   * While speaking, a chunk this many dB or more below the utterance's speaker level counts as
   * silence even when the VAD scores it as speech: background talk (see `foreground-level.ts`).
   * Default 15; null turns it off.
   */
  backgroundGapDb?: number | null;
}

/**
 * Why an utterance ended: silence (`endpointing`), `maximum_duration_without_endpointing`, the end of
 * the stream, or the recognizer (`Endpointer.cut`). After `max_duration` and `recognizer` the next
 * utterance starts at the same sample.
 */
export type UtteranceEndReason = "endpointing" | "max_duration" | "flush" | "recognizer";

export interface SpeechStartEvent {
  type: "speech_start";
  /** Seconds from the channel's stream start. */
  time: number;
}

export interface SpeechEndEvent {
  type: "speech_end";
  time: number;
}

export interface UtterancePartialEvent {
  type: "utterance_partial";
  /** 0-based, increasing per channel. */
  utteranceIndex: number;
  /** Seconds of `audio[0]` from the channel's stream start. */
  start: number;
  /** Seconds just after the last sample of `audio`. */
  end: number;
  /** The utterance so far (a copy), at the VAD rate. */
  audio: Float32Array;
  /**
   * Emitted `speechPadMs` into a pause (`partialOnPause`): `audio` ends where the utterance's final
   * audio would end if no speech followed.
   */
  pause: boolean;
  /**
   * Seconds (from the channel's stream start) where a `maximum_duration_without_endpointing` cut may
   * fall: words of this partial that end after it must not be committed (they may belong to the
   * next piece). Null when the utterance can be cut only after this partial's end.
   */
  commitLimit: number | null;
}

export interface UtteranceFinalEvent {
  type: "utterance_final";
  utteranceIndex: number;
  start: number;
  end: number;
  audio: Float32Array;
  reason: UtteranceEndReason;
}

export type EndpointerEvent = SpeechStartEvent | SpeechEndEvent | UtterancePartialEvent | UtteranceFinalEvent;

export interface Endpointer {
  readonly sampleRate: number;
  /**
   * Appends audio and returns the events it caused, in order. Calls are processed in call order
   * even when the caller does not await between them.
   */
  push(samples: Float32Array): Promise<EndpointerEvent[]>;
  /** End of stream: scores the last partial chunk and ends an open utterance (reason `flush`). */
  flush(): Promise<EndpointerEvent[]>;
  /**
   * Asks for open utterance `utteranceIndex` to be cut at `time` (seconds from the channel's start)
   * as if by the maximum duration (reason `recognizer`): the recognizer heard its words end there
   * while the VAD still hears sound. Made once audio up to `time` is scored; ignored if that
   * utterance has ended by then or does not contain `time`.
   */
  cut(utteranceIndex: number, time: number): void;
  /** Samples taken in so far (updated as queued pushes are processed). */
  readonly samplesReceived: number;
  /** Samples currently held (open utterance, pre-roll and the unscored remainder). */
  readonly samplesHeld: number;
  /** True between `speech_start` and `speech_end`. */
  readonly inSpeech: boolean;
}
