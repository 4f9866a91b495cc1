/** The Whisper engine's decoding options, their defaults, and the encoder window they give a short utterance. */
import { WHISPER_CHUNK_SAMPLES, WHISPER_SAMPLE_RATE } from "../../dsp/whisper-mel.ts";

export interface WhisperDecodingOptions {
  /** Beam size for final results at temperature 0 (1 = greedy). Default 5. */
  beamSize: number;
  /** Temperatures tried in turn while a result fails the checks (finals only). */
  temperatures: number[];
  /**
   * Texts sampled side by side at each temperature above 0, the likeliest kept (faster-whisper's
   * `best_of`). A request for a greedy search (beam size 1) samples one. Default 5.
   */
  bestOf: number;
  /** Above this gzip ratio a result is a fallback candidate; a final one still above is rejected. */
  compressionRatioThreshold: number;
  /** Below this average log-probability a result is a fallback candidate. */
  logProbThreshold: number;
  /**
   * A window whose new audio (after any lead) is shorter than this (s) falls back for a low average
   * log-probability alone no more: a word or two's average rests on a few tokens (its punctuation,
   * its end), and on the fidelity set such fallbacks never passed at a higher temperature; each cost
   * five decodes and kept the temperature-0 text (bench/README.md, "Fidelity"). Repetition, an
   * overrun and text denser than speech still fall back. 0: every window falls back.
   */
  lowLogprobFallbackMinS: number;
  /** With the average log-probability also below `logProbThreshold`, the window is silence. */
  noSpeechThreshold: number;
  /** Emit timestamp tokens (segment and word timings). Default true. */
  timestamps: boolean;
  /** Seed of the sampler used at temperatures above 0. */
  seed: number;
  /**
   * How a window shorter than 30 s is padded before the encoder: `"audio"` pads the audio with zeros
   * (openai/whisper's reference log-mel), `"features"` pads the normalised log-mel with zeros
   * (faster-whisper's front end). See `whisperLogMel`.
   */
  padding: "audio" | "features";
  /** Audio whose peak stays below this (−60 dBFS) is silence: nothing is decoded (Whisper hallucinates on it). */
  silencePeak: number;
  /**
   * Most tokens a window may yield per second of its audio (plus `TOKEN_SLACK`): speech gives 2–8
   * (timestamps included), a decoder caught in a repetition loop runs on to the 224-token limit. A
   * decode that reaches this budget stops there and counts as a failed one, like a repetitive
   * result (temperature fallback, then rejected), so a runaway loop on a short utterance costs a
   * few dozen decoder steps instead of 224.
   */
  maxTokensPerSecond: number;
  /**
   * The shortest encoder window (s) of a short utterance in a request for low latency
   * (`TranscribeRequest.lowLatency`), where the encoder takes a variable number of frames (as
   * `models pull` converts it): the window is then at least twice its audio, in 5-s steps, between
   * this and 30 s (`encoderWindowSamples`). Other requests, and 30 here: every window is 30 s, as
   * Whisper was trained.
   */
  shortestWindowS: number;
  /**
   * A partial whose request allows it (`TranscribeRequest.shortPartialWindows`) is encoded in the
   * short window of a low-latency request (`encoderWindowSamples`) where the encoder takes a
   * variable number of frames. Set per model in the catalogue where `bench/wer --partials
   * --realtime` shows no word lost that way (bench/README.md, "Partials in short windows").
   */
  shortPartialWindows: boolean;
}

/** Tokens a window may yield beyond `maxTokensPerSecond` × its duration (the sot sequence's neighbours, a short word). */
export const TOKEN_SLACK = 16;

export const DEFAULT_DECODING: WhisperDecodingOptions = {
  beamSize: 5,
  temperatures: [0, 0.2, 0.4, 0.6, 0.8, 1],
  bestOf: 5,
  compressionRatioThreshold: 2.4,
  logProbThreshold: -1,
  lowLogprobFallbackMinS: 3,
  noSpeechThreshold: 0.6,
  timestamps: true,
  seed: 1,
  padding: "features",
  silencePeak: 1e-3,
  maxTokensPerSecond: 20,
  shortestWindowS: 15,
  shortPartialWindows: false,
};

/**
 * Samples of the encoder window for `samples` of audio (at most 30 s of it) and the shortest window
 * `shortestS`: twice the audio rounded up to 5 s, within [shortestS, 30] s. The encoder's attention
 * costs the square of its window: a 15-s window takes about a third of a 30-s one's time. The rest
 * of the window is padding, as in a 30-s one; a window barely longer than its audio loses words
 * (bench/README.md, "Shorter encoder windows").
 */
export function encoderWindowSamples(samples: number, shortestS: number): number {
  const step = 5 * WHISPER_SAMPLE_RATE;
  const twice = Math.ceil((2 * samples) / step) * step;
  const shortest = Math.ceil((Math.max(0, shortestS) * WHISPER_SAMPLE_RATE) / step) * step;
  return Math.min(WHISPER_CHUNK_SAMPLES, Math.max(shortest, twice));
}
