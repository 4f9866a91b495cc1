/** The Whisper engine's own options, request and result (beyond the engine-neutral ones of `../types.ts`). */
import type { LanguageProbability, TranscribeRequest, TranscribeResult } from "../types.ts";
import type { QuantizedChoice } from "./config.ts";
import type { DecoderCallTrace } from "./decoder.ts";
import type { WhisperDecodingOptions } from "./decoding-options.ts";
import type { TimedSegment } from "./segments.ts";

export interface WhisperEngineOptions {
  /** Model directory (config.json, generation_config.json, encoder/decoder ONNX files). */
  modelDir: string;
  /** Directory with `multilingual.tiktoken` / `gpt2.tiktoken` and optionally `mel_80.f32`/`mel_128.f32`. */
  assetsDir: string;
  name?: string;
  threads?: number;
  nMels?: 80 | 128;
  /** int8 files for both parts (true), neither (false, default) or the encoder only ("encoder"). */
  preferQuantized?: QuantizedChoice;
  decoding?: Partial<WhisperDecodingOptions>;
  /** Task when a request names none (a catalogue entry may serve translation only). Default transcribe. */
  task?: "transcribe" | "translate";
  /** Voice-activity gate: when it returns false the audio is reported as no speech without decoding. */
  vad?: (audio: Float32Array) => boolean | Promise<boolean>;
  /** Time words by cross-attention alignment where the model has `decoder_alignment.onnx` (default true; false: by spoken length, for comparison). */
  alignWords?: boolean;
  /** Called before every decoder run (diagnostics). */
  onDecoderCall?: (trace: DecoderCallTrace) => void;
}

/** A request that may carry the caller's own voice-activity decision. */
export interface WhisperTranscribeRequest extends TranscribeRequest {
  /** False marks the audio as non-speech (e.g. from an upstream VAD): nothing is decoded. */
  speech?: boolean;
  /** Overrides of the decoding options for this call. */
  decoding?: Partial<WhisperDecodingOptions>;
}

/** Timed segments of the last transcription, besides the engine-neutral result. */
export interface WhisperTranscribeResult extends TranscribeResult {
  segments: TimedSegment[];
  /**
   * Decoding statistics of the window(s): log-probability (total and average), no-speech
   * probability, gzip ratio, the temperature, and whether the result kept passed the fallback
   * checks (or was silence) rather than being the best of failed attempts.
   */
  stats: { sumLogprob: number; avgLogprob: number; noSpeechProb: number; compressionRatio: number; temperature: number; passed: boolean }[];
  /** Language probabilities of the first window when the language was detected, most likely first. */
  languageProbabilities?: LanguageProbability[];
}
