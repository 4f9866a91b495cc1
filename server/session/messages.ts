/**
 * Builders of the messages a live session sends, typed by the contracts' generated types
 * (`generated/openapi/types.gen.ts`), and the delivery rules of each type: the `messages_config` /
 * `callback_config` flag that selects it, whether the socket carries it, whether it may be posted to
 * the callback URL. The last two come from the contracts' own discriminator mappings, so a message
 * type added to the contracts is delivered as they say without a list to update here.
 */
import { CallbackMessageSchema, ServerMessageSchema } from "../../generated/openapi/schemas.gen.ts";
import type {
  AudioChunkAckMessage,
  CallbackMessage,
  EndRecordingMessage,
  EndSessionMessage,
  ErrorMessage,
  MessagesConfig,
  PostFinalTranscriptMessage,
  PostTranscriptMessage,
  ServerMessage,
  SpeechEndMessage,
  SpeechStartMessage,
  StartRecordingMessage,
  StartSessionMessage,
  StopRecordingAckMessage,
  TranscriptMessage,
  Transcription,
  TranscriptionResult,
  Utterance,
} from "../../generated/openapi/types.gen.ts";

/** A message of the contracts posted to the callback URL (the `payload` of a callback body). */
export type CallbackPayload = CallbackMessage["payload"];
/** Every message a session produces: those of the WebSocket and the callback-only ones (`start_session`). */
export type SessionMessage = ServerMessage | CallbackPayload;
export type MessageType = SessionMessage["type"];
/** The message of one `type`. */
export type MessageOf<T extends MessageType> = Extract<SessionMessage, { type: T }>;
/** What a builder fills in besides the head (`session_id`, `created_at`, `type`). */
export type MessageBody<T extends MessageType> = Omit<MessageOf<T>, "session_id" | "created_at" | "type">;

export type MessageFlag = keyof Required<MessagesConfig>;

/**
 * The flag enabling each type (the spec's table of server messages); null: always sent, never by
 * callback. A new message type of the contracts fails to type-check here until it gets its row.
 */
const FLAGS: Record<Exclude<MessageType, "transcript">, MessageFlag | null> = {
  start_session: "receive_lifecycle_events",
  start_recording: "receive_lifecycle_events",
  end_recording: "receive_lifecycle_events",
  end_session: "receive_lifecycle_events",
  speech_start: "receive_speech_events",
  speech_end: "receive_speech_events",
  named_entity_recognition: "receive_realtime_processing_events",
  sentiment_analysis: "receive_realtime_processing_events",
  translation: "receive_realtime_processing_events",
  pii: null,
  end_of_turn: null,
  end_of_turn_score: null,
  audio_chunk: "receive_acknowledgments",
  stop_recording: "receive_acknowledgments",
  post_transcript: "receive_post_processing_events",
  post_final_transcript: "receive_post_processing_events",
  error: "receive_errors",
};

/** The `messages_config` / `callback_config` flag enabling a message; null when no flag governs it. */
export function flagOf(message: SessionMessage): MessageFlag | null {
  if (message.type === "transcript") return message.data.is_final ? "receive_final_transcripts" : "receive_partial_transcripts";
  return FLAGS[message.type];
}

const SOCKET_TYPES: ReadonlySet<string> = new Set(Object.keys(ServerMessageSchema.discriminator.mapping));
const CALLBACK_TYPES: ReadonlySet<string> = new Set(Object.keys(CallbackMessageSchema.discriminator.mapping).map((e) => e.slice("live.".length)));

/** Whether the WebSocket carries the message (`start_session` is callback only). */
export function onSocket(message: SessionMessage): message is ServerMessage {
  return SOCKET_TYPES.has(message.type);
}

/** Whether the message may be posted to the callback URL. */
export function byCallback(message: SessionMessage): message is CallbackPayload {
  return CALLBACK_TYPES.has(message.type);
}

/** Lifecycle and final messages that must never be dropped by a slow client. */
export function isEssential(message: SessionMessage): boolean {
  return message.type !== "transcript" || message.data.is_final;
}

/** Builds messages of one session; `now` gives the creation time of each. */
export class MessageFactory {
  constructor(
    private readonly sessionId: string,
    private readonly now: () => number,
  ) {}

  /** Any message of the contracts: the head filled in, the rest as given. */
  build<T extends MessageType>(type: T, body: MessageBody<T>): MessageOf<T> {
    return { session_id: this.sessionId, created_at: new Date(this.now()).toISOString(), type, ...body } as MessageOf<T>;
  }

  startSession(): StartSessionMessage {
    return this.build("start_session", {});
  }

  startRecording(): StartRecordingMessage {
    return this.build("start_recording", {});
  }

  speech(type: "speech_start" | "speech_end", time: number, channel: number): SpeechStartMessage | SpeechEndMessage {
    return this.build(type, { data: { time: round3(time), channel } });
  }

  transcript(id: string, isFinal: boolean, utterance: Utterance): TranscriptMessage {
    return this.build("transcript", { data: { id, is_final: isFinal, utterance } });
  }

  audioChunkAck(byteRange: [number, number], timeRange: [number, number]): AudioChunkAckMessage {
    return this.build("audio_chunk", { acknowledged: true, error: null, data: { byte_range: byteRange, time_range: timeRange } });
  }

  stopRecordingAck(recordingDuration: number, leftToProcess: number): StopRecordingAckMessage {
    return this.build("stop_recording", {
      acknowledged: true,
      error: null,
      data: { recording_duration: round3(recordingDuration), recording_left_to_process: round3(Math.max(0, leftToProcess)) },
    });
  }

  endRecording(recordingDuration: number): EndRecordingMessage {
    return this.build("end_recording", { data: { recording_duration: round3(recordingDuration) } });
  }

  postTranscript(transcription: Transcription): PostTranscriptMessage {
    return this.build("post_transcript", { data: transcription });
  }

  postFinalTranscript(result: TranscriptionResult): PostFinalTranscriptMessage {
    return this.build("post_final_transcript", { data: result });
  }

  endSession(): EndSessionMessage {
    return this.build("end_session", {});
  }

  error(message: string, code = "bad_request"): ErrorMessage {
    return this.build("error", { error: { code, message } });
  }
}

/** Rounds seconds to the millisecond. */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
