/**
 * The latency profiles of a streamed utterance (`low_latency`, `balanced`, `accurate`): what each
 * sets of the streaming policy (`streaming.ts`) and of the decodes it asks for.
 */
export type LatencyProfile = "low_latency" | "balanced" | "accurate";

export interface StreamingProfile {
  /** Milliseconds of new audio between partial decodes (the endpointer's partial interval). */
  partialIntervalMs: number;
  /** Milliseconds a partial waits before its decode, in case a pause replaces it (`UtteranceStreamOptions.holdPartialsMs`). */
  partialHoldMs: number;
  /** How many successive decodes must agree on words before they are committed (2 = LocalAgreement-2). */
  agreement: number;
  /** Buffer length (s) above which it is cut at a committed sentence or segment end. */
  maxBufferS: number;
  /** Buffer length (s) above which it is cut at the last committed word. */
  hardBufferS: number;
  /** Beam size of the final's tail decode (1 = greedy). */
  finalBeamSize: number;
  /** The final may reuse the newest partial decode (greedy, no fallback) when it covered the whole utterance. */
  reuseCoveringDecode: boolean;
  /**
   * The final takes committed words from final-settings decodes of their audio rather than from the
   * partial decodes that agreed on them: the buffer's from the final's own decode, those cut out of
   * the buffer from one decode per cut, made once a few seconds of audio follow it
   * (`UtteranceStream`, "Revised committed words").
   */
  reviseCommitted: boolean;
  /**
   * Only words ending at least this many seconds before the end of a decode's audio are committed:
   * a word cut off by the end of the audio is often misheard the same way by successive decodes.
   */
  commitMarginS: number;
  /**
   * Nothing is committed before the utterance has this many seconds of audio: the first words,
   * decoded with little audio after them, are often misheard alike by successive decodes.
   */
  minCommitAudioS: number;
  /**
   * When a partial decode took longer than the partial interval (queue wait included), the next one
   * waits this many times the excess (0: never); at most `maxRestS`.
   */
  restWhenBehind: number;
  /** Longest rest between partial decodes, seconds. */
  maxRestS: number;
  /**
   * Longest wait (ms) of a stream's next partial for a running revision of its committed words
   * (`reviseCommitted`): queued behind the partials, on an engine they keep busy, a revision would
   * never finish. Once per attempt (a pause stops a revision, which then starts again); past it
   * the partials go on and the revision runs beside them.
   */
  revisionWaitMs: number;
  /** Every decode asks the engine for latency before accuracy (`TranscribeRequest.lowLatency`). */
  lowLatencyDecodes: boolean;
  /** Partials may be encoded in shorter windows where the model allows it (`TranscribeRequest.shortPartialWindows`). */
  shortPartialWindows: boolean;
}

/**
 * What each latency profile changes. `low_latency` decodes often and finishes with what the
 * partials already decoded; `accurate` commits only what three decodes agree on and re-decodes the
 * uncommitted tail with a beam search at the end.
 */
export const STREAMING_PROFILES: Record<LatencyProfile, StreamingProfile> = {
  low_latency: { partialHoldMs: 160, partialIntervalMs: 250, agreement: 2, maxBufferS: 6, hardBufferS: 15, finalBeamSize: 1, reuseCoveringDecode: true, reviseCommitted: false, commitMarginS: 0.3, minCommitAudioS: 1.5, restWhenBehind: 1, maxRestS: 2, revisionWaitMs: 0, lowLatencyDecodes: true, shortPartialWindows: true },
  balanced: { partialHoldMs: 160, partialIntervalMs: 500, agreement: 2, maxBufferS: 10, hardBufferS: 20, finalBeamSize: 5, reuseCoveringDecode: true, reviseCommitted: true, commitMarginS: 0.3, minCommitAudioS: 1.5, restWhenBehind: 1, maxRestS: 2, revisionWaitMs: 4000, lowLatencyDecodes: false, shortPartialWindows: true },
  accurate: { partialHoldMs: 160, partialIntervalMs: 1000, agreement: 3, maxBufferS: 15, hardBufferS: 25, finalBeamSize: 5, reuseCoveringDecode: false, reviseCommitted: true, commitMarginS: 0.3, minCommitAudioS: 1.5, restWhenBehind: 1, maxRestS: 2, revisionWaitMs: 4000, lowLatencyDecodes: false, shortPartialWindows: false },
};

export function streamingProfile(name: string | undefined): StreamingProfile {
  return STREAMING_PROFILES[(name ?? "balanced") as LatencyProfile] ?? STREAMING_PROFILES.balanced;
}
