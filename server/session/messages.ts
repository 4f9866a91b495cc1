/**
 * Builders of the server messages of a live session, in the shapes of the contracts
 * (`generated/openapi/types.gen.ts`), and the delivery flag that selects each of them.
 */
import type {
  AudioChunkAckMessage,
  EndOfTurnMessage,
  EndOfTurnScoreMessage,
  EndRecordingMessage,
  EndSessionMessage,
  ErrorMessage,
  MessagesConfig,
  PostFinalTranscriptMessage,
  PostTranscriptMessage,
  SpeechEndMessage,
  SpeechStartMessage,
  StartRecordingMessage,
  StartSessionMessage,
  StopRecordingAckMessage,
  TranscriptMessage,
  Transcription,
  TranslationMessage,
  TranscriptionResult,
  Utterance,
} from "../../generated/openapi/types.gen.ts";

export type ServerMessage =
  | StartSessionMessage
  | StartRecordingMessage
  | SpeechStartMessage
  | SpeechEndMessage
  | TranscriptMessage
  | AudioChunkAckMessage
  | StopRecordingAckMessage
  | EndRecordingMessage
  | PostTranscriptMessage
  | PostFinalTranscriptMessage
  | EndSessionMessage
  | ErrorMessage
  | TranslationMessage
  | EndOfTurnMessage
  | EndOfTurnScoreMessage;

export type MessageFlag = keyof Required<MessagesConfig>;

/**
 * The `messages_config` / `callback_config` flag enabling a message; null for `end_of_turn` and
 * `end_of_turn_score`, which no flag selects: always sent on the WebSocket, never to a callback.
 */
export function flagOf(message: ServerMessage): MessageFlag | null {
  switch (message.type) {
    case "start_session":
    case "start_recording":
    case "end_recording":
    case "end_session":
      return "receive_lifecycle_events";
    case "speech_start":
    case "speech_end":
      return "receive_speech_events";
    case "transcript":
      return message.data.is_final ? "receive_final_transcripts" : "receive_partial_transcripts";
    case "audio_chunk":
    case "stop_recording":
      return "receive_acknowledgments";
    case "post_transcript":
    case "post_final_transcript":
      return "receive_post_processing_events";
    case "error":
      return "receive_errors";
    case "translation":
      return "receive_realtime_processing_events";
    case "end_of_turn":
    case "end_of_turn_score":
      return null;
  }
}

/** Lifecycle and final messages that must never be dropped by a slow client. */
export function isEssential(message: ServerMessage): boolean {
  return message.type !== "transcript" || message.data.is_final;
}

/** Builds messages of one session; `now` gives the creation time of each. */
export class MessageFactory {
  constructor(
    private readonly sessionId: string,
    private readonly now: () => number,
  ) {}

  private head() {
    return { session_id: this.sessionId, created_at: new Date(this.now()).toISOString() };
  }

  startSession(): StartSessionMessage {
    return { ...this.head(), type: "start_session" };
  }

  startRecording(): StartRecordingMessage {
    return { ...this.head(), type: "start_recording" };
  }

  speech(type: "speech_start" | "speech_end", time: number, channel: number): SpeechStartMessage | SpeechEndMessage {
    return { ...this.head(), type, data: { time: round3(time), channel } } as SpeechStartMessage | SpeechEndMessage;
  }

  transcript(id: string, isFinal: boolean, utterance: Utterance): TranscriptMessage {
    return { ...this.head(), type: "transcript", data: { id, is_final: isFinal, utterance } };
  }

  audioChunkAck(byteRange: [number, number], timeRange: [number, number]): AudioChunkAckMessage {
    return { ...this.head(), type: "audio_chunk", acknowledged: true, error: null, data: { byte_range: byteRange, time_range: timeRange } };
  }

  stopRecordingAck(recordingDuration: number, leftToProcess: number): StopRecordingAckMessage {
    return {
      ...this.head(),
      type: "stop_recording",
      acknowledged: true,
      error: null,
      data: { recording_duration: round3(recordingDuration), recording_left_to_process: round3(Math.max(0, leftToProcess)) },
    };
  }

  endRecording(recordingDuration: number): EndRecordingMessage {
    return { ...this.head(), type: "end_recording", data: { recording_duration: round3(recordingDuration) } };
  }

  postTranscript(transcription: Transcription): PostTranscriptMessage {
    return { ...this.head(), type: "post_transcript", data: transcription };
  }

  postFinalTranscript(result: TranscriptionResult): PostFinalTranscriptMessage {
    return { ...this.head(), type: "post_final_transcript", data: result };
  }

  endSession(): EndSessionMessage {
    return { ...this.head(), type: "end_session" };
  }

  translation(data: NonNullable<TranslationMessage["data"]>): TranslationMessage {
    return { ...this.head(), type: "translation", error: null, data };
  }

  endOfTurn(data: EndOfTurnMessage["data"]): EndOfTurnMessage {
    return { ...this.head(), type: "end_of_turn", data };
  }

  endOfTurnScore(data: EndOfTurnScoreMessage["data"]): EndOfTurnScoreMessage {
    return { ...this.head(), type: "end_of_turn_score", data };
  }

  error(message: string, code = "bad_request"): ErrorMessage {
    return { ...this.head(), type: "error", error: { code, message } };
  }
}

/** Rounds seconds to the millisecond. */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
