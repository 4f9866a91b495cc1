/**
 * Values applied to options the init body omits (served by GET /v2/live/defaults), and the merge of a
 * request with them: the options a session actually runs with.
 */
import type { EndOfTurnDefaults, LatencyProfileSettings, LiveDefaults, LiveSessionInit, MessagesConfig } from "../../generated/openapi/types.gen.ts";
import { STREAMING_PROFILES, type StreamingProfile } from "../session/streaming.ts";

const profileSettings = (p: StreamingProfile): LatencyProfileSettings => ({
  partial_interval_ms: p.partialIntervalMs,
  agreement: p.agreement,
  max_buffer_s: p.maxBufferS,
  final_beam_size: p.finalBeamSize,
  final_reuses_partial: p.reuseCoveringDecode,
});

export const endOfTurnDefaults: Required<EndOfTurnDefaults> = {
  threshold: 0.6,
  silence_ms: 200,
  stop_s: 1.5,
  reeval_ms: 200,
  window_s: 2,
  speech_dbfs: -50,
  emit_scores: false,
};

export const messagesDefaults: Required<MessagesConfig> = {
  receive_partial_transcripts: true,
  receive_final_transcripts: true,
  receive_speech_events: true,
  receive_pre_processing_events: true,
  receive_realtime_processing_events: true,
  receive_post_processing_events: true,
  receive_acknowledgments: true,
  receive_errors: true,
  receive_lifecycle_events: false,
};

export const callbackMessagesDefaults: Required<MessagesConfig> = {
  receive_partial_transcripts: false,
  receive_final_transcripts: true,
  receive_speech_events: false,
  receive_pre_processing_events: true,
  receive_realtime_processing_events: true,
  receive_post_processing_events: true,
  receive_acknowledgments: false,
  receive_errors: false,
  receive_lifecycle_events: true,
};

export const liveDefaults: LiveDefaults = {
  encoding: "wav/pcm",
  bit_depth: 16,
  sample_rate: 16000,
  channels: 1,
  model: "solaria-1",
  profile: "balanced",
  endpointing: 0.64,
  maximum_duration_without_endpointing: null,
  language_config: { languages: [], code_switching: false },
  messages_config: messagesDefaults,
  callback: false,
  callback_config: callbackMessagesDefaults,
  end_of_turn: endOfTurnDefaults,
  turn_router: false,
  numerals: false,
  punctuation: true,
  diarization: false,
  named_entity_recognition: { entities: "pii", threshold: 0.5 },
  pii: { entities: "pii", threshold: 0.5, return_entities: false },
  profiles: {
    low_latency: profileSettings(STREAMING_PROFILES.low_latency),
    balanced: profileSettings(STREAMING_PROFILES.balanced),
    accurate: profileSettings(STREAMING_PROFILES.accurate),
  },
};

/** The options a session runs with: the request, every omitted member filled from the defaults. */
export type AppliedOptions = Omit<LiveSessionInit, "end_of_turn" | "messages_config" | "language_config"> & {
  encoding: NonNullable<LiveSessionInit["encoding"]>;
  bit_depth: NonNullable<LiveSessionInit["bit_depth"]>;
  sample_rate: NonNullable<LiveSessionInit["sample_rate"]>;
  channels: number;
  model: NonNullable<LiveSessionInit["model"]>;
  profile: NonNullable<LiveSessionInit["profile"]>;
  endpointing: number;
  maximum_duration_without_endpointing: number | null;
  language_config: { languages: string[]; code_switching: boolean };
  messages_config: Required<MessagesConfig>;
  callback: boolean;
  end_of_turn: Required<EndOfTurnDefaults>;
  turn_router: boolean;
  numerals: boolean;
  punctuation: boolean;
  diarization: boolean;
};

/** The members of `o` that are set (neither null nor undefined). */
const dropNulls = <T extends object>(o: T | null | undefined): { [K in keyof T]?: NonNullable<T[K]> } =>
  Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== null && v !== undefined)) as { [K in keyof T]?: NonNullable<T[K]> };

export function applyDefaults(init: LiveSessionInit): AppliedOptions {
  const d = liveDefaults;
  const applied: AppliedOptions = {
    ...init,
    encoding: init.encoding ?? d.encoding,
    bit_depth: init.encoding === "wav/alaw" || init.encoding === "wav/ulaw" ? 8 : (init.bit_depth ?? d.bit_depth),
    sample_rate: init.sample_rate ?? d.sample_rate,
    channels: init.channels ?? d.channels,
    model: init.model ?? d.model,
    profile: init.profile ?? d.profile,
    endpointing: init.endpointing ?? d.endpointing,
    maximum_duration_without_endpointing: init.maximum_duration_without_endpointing ?? null,
    language_config: {
      languages: init.language_config?.languages ?? [],
      code_switching: init.language_config?.code_switching ?? false,
    },
    messages_config: { ...messagesDefaults, ...dropNulls(init.messages_config) },
    callback: init.callback ?? d.callback,
    end_of_turn: { ...endOfTurnDefaults, ...dropNulls(init.end_of_turn) },
    turn_router: init.turn_router ?? d.turn_router,
    numerals: init.numerals ?? d.numerals,
    punctuation: init.punctuation ?? d.punctuation,
    diarization: init.diarization ?? d.diarization,
  };
  if (init.callback_config) applied.callback_config = { ...callbackMessagesDefaults, ...dropNulls(init.callback_config) } as typeof init.callback_config;
  return applied;
}
