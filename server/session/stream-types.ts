/**
 * The interface of a streamed utterance (`UtteranceStream`, `streaming.ts`): what it is given (its
 * options, the decode function and the request it sends it) and what each partial or final shows.
 */
import type { TranscribeResult, WordTiming } from "../../workers/contract/types.ts";
import type { StreamingProfile } from "./profiles.ts";

export interface StreamDecodeRequest {
  /** The buffer: utterance audio from the buffer start on (16 kHz mono). */
  audio: Float32Array;
  /** Seconds of the utterance before `audio` (the buffer's start after a cut; 0 before one). */
  offset: number;
  /** A check whether a stretch holds speech: its language detection is no witness of the utterance's. */
  probe?: boolean;
  /** Earlier text (previous utterances and the committed words before the buffer). */
  previousText: string;
  partial: boolean;
  /** A final-settings decode of a pause (the speculative final): it may be discarded. */
  speculative?: boolean;
  /**
   * A final-settings decode no one waits for (a revision of committed words): queued behind finals
   * and speculative finals, as partials are; it may be discarded.
   */
  background?: boolean;
  /** Beam size asked for a final decode. */
  beamSize?: number;
  /**
   * The buffer is the whole utterance, prompted with the earlier text only: a final-settings decode
   * of it may be heard after the stream's latest utterances (a lead, `lead.ts`).
   */
  leadable?: boolean;
}

/** `signal`: the stream no longer wants the result (the decode may stop early and reject). */
export type StreamDecode = (req: StreamDecodeRequest, signal?: AbortSignal) => Promise<TranscribeResult>;

/** What a partial or final shows: committed words first (never retracted), then the tentative tail. */
export interface StreamView {
  committed: WordTiming[];
  tentative: WordTiming[];
  /** committed + tentative, joined with single spaces. */
  text: string;
  /** Times are seconds from the utterance's first sample. */
  words: WordTiming[];
  language: string;
  confidence: number;
  /** Seconds of the utterance the decode behind this view covered. */
  end: number;
  /**
   * The decode behind this view was the speculative final of a pause (final search settings) and
   * skipped no audio: the utterance up to `end` is transcribed as its final would be if the pause
   * became its end.
   */
  speculative: boolean;
  /**
   * Seconds of the utterance transcribed as its final will have them: the end of a speculative
   * view (no further than the commit limit, where the utterance may be cut), else the end of the
   * last committed word (0 without one).
   */
  transcribed: number;
  /**
   * Wall seconds, request to result, of the decodes this view comes from: the one decode of a
   * partial; for the final, the reused (speculative or partial) decode or the final's own decodes.
   * Other decodes (earlier partials, speculative decodes not used, aborted decodes) are not counted.
   */
  seconds: number;
}

export interface UtteranceStreamOptions {
  profile: StreamingProfile;
  decode: StreamDecode;
  /**
   * Text said before this utterance (the prompt's start). A function is read at every decode: the
   * utterances before this one may still be in recognition when its first partial is decoded, and
   * each later decode is prompted with what has been recognized by then.
   */
  context?: string | (() => string);
  /**
   * Null when every earlier utterance of the channel is recognized (the prompt and lead a decode
   * gets are the final's own); else a promise that resolves once they are. A final-settings decode
   * asked before then is not reused as the final, whose own decode waits for it: what a final
   * reads does not depend on how fast the one before it was recognized.
   */
  contextPending?: () => Promise<unknown> | null;
  /**
   * The decodes' engine suspends a running background decode (a revision) for a more urgent one,
   * its work kept (`InferenceCoordinator.suspendsBackground`): a pause's speculative final need not
   * stop the revisions running. Absent, it stops them, and they start again once it has returned.
   */
  revisionsYield?: boolean;
  /** Called with each partial view, in order. */
  onPartial?: (view: StreamView) => void;
  /** Called when a partial decode fails (the next one is tried anyway). */
  onError?: (err: unknown) => void;
  sampleRate?: number;
  /** Milliseconds clock (default performance.now): decode times and rests. */
  now?: () => number;
  /**
   * Milliseconds a partial's audio waits before its decode starts (default 0); a pause or the
   * final ends the wait. A pause aborts the partial decode in flight, which stops only after the
   * encoder stage or decoder step running, and a short utterance's first partial often falls due a
   * chunk or two before the VAD reports the pause: waiting about one frame lets the pause replace
   * it before any work is done.
   */
  holdPartialsMs?: number;
  /**
   * Seconds after the last committed word in which the decodes may hear no word before `onQuiet` is
   * called (absent: never).
   */
  quietS?: number;
  /**
   * Called once when the last `agreement` decodes heard nothing after the committed words, the
   * newest ran `quietS` past the last of them, and that stretch decoded alone (no prompt, final
   * settings, as a speculative decode) holds no word: the speaker has stopped while the VAD still
   * hears sound (background voices, noise). `cutAt` (utterance seconds) is where the utterance may be
   * cut: the newest decode's end less the commit margin, at least `quietS / 2` after that word. If
   * it is cut there, its final is the committed words.
   */
  onQuiet?: (cutAt: number) => void;
}
