/** The session result (`post_final_transcript` data, stored for `GET /v2/live/{id}`). */
import type { Transcription, TranscriptionResult, Utterance } from "../../generated/openapi/types.gen.ts";
import { round3 } from "./messages.ts";

/** Final utterances in time order (channel breaks ties), joined into the session transcript. */
export function buildTranscription(utterances: readonly Utterance[]): Transcription {
  const ordered = [...utterances].sort((a, b) => a.start - b.start || a.channel - b.channel);
  const languages = [...new Set(ordered.map((u) => u.language).filter((l) => l !== ""))];
  return {
    full_transcript: ordered.map((u) => u.text).filter((t) => t !== "").join(" "),
    languages,
    utterances: ordered,
  };
}

export interface ResultMetrics {
  audioDurationS: number;
  channels: number;
  /** Seconds spent in transcription calls. */
  transcriptionTimeS: number;
}

export function buildResult(utterances: readonly Utterance[], m: ResultMetrics): TranscriptionResult {
  return {
    metadata: {
      audio_duration: round3(m.audioDurationS),
      number_of_distinct_channels: m.channels,
      billing_time: round3(m.audioDurationS),
      transcription_time: round3(m.transcriptionTimeS),
    },
    transcription: buildTranscription(utterances),
  };
}
