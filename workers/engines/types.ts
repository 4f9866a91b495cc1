/**
 * The engine interface: what every speech-recognition family (Whisper-style encoder/decoder,
 * streaming transducer, isolated-token classifier) offers to the rest of the service.
 *
 * Engines hold no session logic; sessions hold no engine internals. Audio is always mono float32
 * in [-1, 1] at `info.sampleRate`; all times in results are seconds from the first sample handed in.
 */

/** Add-ons a model may support (the contracts' capability/feature vocabulary). */
export type { Feature } from "../../generated/openapi/types.gen.ts";
import type { Feature } from "../../generated/openapi/types.gen.ts";

export type EngineFamily = "whisper" | "transducer" | "isolated-token";

export interface EngineInfo {
  family: EngineFamily;
  /** Catalogue entry id that produced this engine, e.g. `moonshine-micro-spelling`. */
  name: string;
  /** Language codes the engine transcribes. */
  languages: string[];
  /** Add-ons the engine itself implements (others may be provided by enrichers downstream). */
  features: Feature[];
  /** Languages the engine can translate into (empty when it cannot translate). */
  translationTargets: string[];
  /** Sample rate the engine expects (Hz). */
  sampleRate: number;
  /** True when partial results of a growing utterance are cheap (chunked streaming). */
  streaming: boolean;
}

export interface VocabularyEntry {
  phrase: string;
  /** 0..1, how strongly the phrase is favoured. */
  intensity: number;
  /** Alternative spellings of how it sounds. */
  pronunciations?: string[];
  language?: string;
}

export interface TranscribeRequest {
  /** Mono float32 at `EngineInfo.sampleRate`. For a partial, the utterance so far. */
  audio: Float32Array;
  /** True while the utterance is still growing; the engine may trade accuracy for speed. */
  partial: boolean;
  /**
   * Opaque key of a growing utterance. An engine may cache state under it (e.g. encoder caches)
   * between partial calls; a call with `partial: false` releases it.
   */
  streamKey?: string;
  /** Allowed languages; empty or absent means detect. */
  languages?: string[];
  /**
   * When detecting: the log-evidence per language of the stream's earlier audio (the best at 0; a
   * language absent from it counts as its lowest), added to this audio's own detection.
   */
  languagePrior?: Record<string, number>;
  task?: "transcribe" | "translate";
  targetLanguage?: string;
  vocabulary?: VocabularyEntry[];
  /**
   * Text said just before this audio (e.g. the session's previously committed transcript): context
   * that keeps spelling, casing and punctuation consistent. Engines may ignore it.
   */
  previousText?: string;
  /**
   * The language `previousText` and the lead's text are in. An engine that detects this audio's
   * language and finds another leaves both out: Whisper copies its prompt's script, and prompted
   * with a reply it misheard as Japanese it writes English speech in katakana.
   */
  contextLanguage?: string;
  /**
   * Search width of a final (1 = greedy), e.g. from the session's latency profile; engines that do
   * not search ignore it. Absent: the engine's own setting.
   */
  beamSize?: number;
  /**
   * Cores this call may use (set by the engine pool when every other worker is idle; absent: 1).
   * An engine that cannot spread one call over several ignores it.
   */
  cores?: number;
  /**
   * The session asked for latency before accuracy (the `low_latency` profile): an engine may take
   * shortcuts that cost some accuracy (Whisper: shorter encoder windows for short utterances, and
   * temperature fallback for repetition only).
   */
  lowLatency?: boolean;
  /**
   * The session's profile lets a partial be encoded in a shorter window where the model allows it
   * (Whisper: `shortPartialWindows` in the model's decoding options). Finals are not affected.
   */
  shortPartialWindows?: boolean;
  /**
   * The caller keeps an earlier reading of this audio if this decode fails (a revision of committed
   * words): a result that fails the engine's checks is not decoded again (Whisper: no temperature
   * fallback, no unprompted retry); it yields no text. A runaway decode then costs one pass, not six.
   */
  noFallback?: boolean;
  /**
   * The first `samples` of `audio` are earlier audio of the stream (its latest utterances) and
   * `text` is their transcript: context a short utterance is heard in, as it would be in a
   * recording decoded whole. The result covers only the audio after them, timed from there.
   * `previousText` is then the text before the lead. An engine that cannot use a lead transcribes
   * the audio after it alone (`withoutLead`). `segments`, when given, place the lead's utterances
   * (seconds from the audio's first sample; their texts make up `text`).
   */
  lead?: { samples: number; text: string; segments?: { start: number; end: number; text: string }[] };
}

/** The request without its context (`contextLanguage`): the audio after its lead alone, unprompted. */
export function outOfContext<R extends TranscribeRequest>(req: R): R {
  const { previousText: _text, contextLanguage: _language, ...rest } = withoutLead(req);
  return rest as R;
}

/** The request without its lead: the audio after it alone, prompted with the lead's text after `previousText`. */
export function withoutLead<R extends TranscribeRequest>(req: R): R {
  if (!req.lead) return req;
  const { lead, ...rest } = req;
  const previousText = [req.previousText ?? "", lead.text].map((t) => t.trim()).filter((t) => t !== "").join(" ");
  const audio = req.audio.subarray(Math.min(Math.max(0, Math.floor(lead.samples)), req.audio.length));
  return { ...rest, audio, ...(previousText !== "" ? { previousText } : {}) } as R;
}

export interface WordTiming {
  word: string;
  start: number;
  end: number;
  confidence: number;
}

export interface TranscribeResult {
  text: string;
  language: string;
  /** 0..1 */
  confidence: number;
  words: WordTiming[];
  /** The engine judged the audio to contain no speech (text is then empty). */
  noSpeech: boolean;
  /** The detection on this audio alone, when the engine detected the language (best first). */
  languageProbabilities?: LanguageProbability[];
}

export interface LanguageProbability {
  language: string;
  probability: number;
}

export interface Engine {
  readonly info: EngineInfo;
  /** `signal`: the caller no longer wants the result; an engine may stop early (rejecting with it). */
  transcribe(req: TranscribeRequest, signal?: AbortSignal): Promise<TranscribeResult>;
  detectLanguage?(audio: Float32Array, candidates?: string[]): Promise<LanguageProbability[]>;
  dispose(): Promise<void>;
}
