/** What the transcriber (`transcriber.ts`) needs from its session, and what a restarted one continues from. */
import type { InferenceCoordinator } from "../../workers/contract/types.ts";
import type { Logger } from "../log.ts";
import type { AppliedOptions } from "../options/defaults.ts";
import type { EnrichmentPipeline } from "./enrich.ts";
import type { MessageFactory, MessageFlag, SessionMessage } from "./messages.ts";
import type { PersistedSession } from "./persist.ts";

/** What the transcriber needs from its session. */
export interface TranscriberHost {
  readonly id: string;
  readonly options: AppliedOptions;
  readonly coordinator: InferenceCoordinator;
  readonly log: Logger;
  readonly messages: MessageFactory;
  readonly enrichment: EnrichmentPipeline;
  emit(message: SessionMessage): void;
  /** Whether the socket or the callback URL wants messages of `flag`. */
  wants(flag: MessageFlag): boolean;
  /** Sends an `error` message. */
  error(message: string, code: string): void;
  isEnded(): boolean;
  /**
   * The recognizer heard open utterance `utteranceIndex` (the front end's numbering) of `channel`
   * end at session time `time` while the VAD still hears sound: the front end cuts it there.
   */
  cut(channel: number, utteranceIndex: number, time: number): void;
  /** More audio is transcribed (a pause's speculative final returned, a final recognized or handled): acknowledgments may move on. */
  transcribed(): void;
}

/** What a restarted transcriber continues from. */
export type RecognitionState = Pick<PersistedSession, "utterances" | "finalIds" | "indexBase" | "lastFinalEnd" | "transcriptionTimeS" | "suppressBefore">;
