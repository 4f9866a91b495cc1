/**
 * Where the specification keeps the hosted cloud variant's protocol, our shapes agree with it:
 * sample messages and bodies built to OUR schemas also validate against the cloud's published
 * schemas, read at test time from ../shared/reference/cloud (never copied into the repository).
 *
 * Documented differences (skipped here, see contracts/README.md): model names, the ack
 * `time_range` unit (milliseconds), the service-only init options, the strict ack, FLAC recordings.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { check, type SchemaName } from "../../generated/validators.ts";

import { againstCloudAsyncapi, againstCloudOpenapi, cloudOpenapi } from "../helpers/cloud.ts";

// biome-ignore lint/suspicious/noExplicitAny: third-party documents are read dynamically.
type Any = any;

const SESSION = "6f3c9b8e-4c1e-4d8f-9a51-2f0e7d1c3b2a";
const NOW = "2025-01-01T10:00:00.000Z";
const word = (w: string, start: number, end: number) => ({ word: w, start, end, confidence: 0.93 });
const utterance = {
  start: 0.32,
  end: 1.4,
  confidence: 0.93,
  channel: 0,
  words: [word("Hello", 0.32, 0.7), word("world.", 0.74, 1.4)],
  text: "Hello world.",
  language: "en",
};
const transcription = { full_transcript: "Hello world.", languages: ["en"], utterances: [utterance] };
const result = {
  metadata: { audio_duration: 2.5, number_of_distinct_channels: 1, billing_time: 2.5, transcription_time: 0.4 },
  transcription,
};
const envelope = (type: string, payload: object) => ({ id: SESSION, event: `live.${type}`, payload });

const samples: Record<string, Any> = {
  transcript: { session_id: SESSION, created_at: NOW, type: "transcript", data: { id: "0:0", is_final: true, utterance } },
  speechStart: { session_id: SESSION, created_at: NOW, type: "speech_start", data: { time: 0.3, channel: 0 } },
  speechEnd: { session_id: SESSION, created_at: NOW, type: "speech_end", data: { time: 1.5, channel: 0 } },
  ack: { session_id: SESSION, created_at: NOW, type: "audio_chunk", acknowledged: true, error: null, data: { byte_range: [0, 32000], time_range: [0, 1000] } },
  stopAck: { session_id: SESSION, created_at: NOW, type: "stop_recording", acknowledged: true, error: null, data: { recording_duration: 2.5, recording_left_to_process: 0 } },
  startSession: { session_id: SESSION, created_at: NOW, type: "start_session" },
  startRecording: { session_id: SESSION, created_at: NOW, type: "start_recording" },
  endRecording: { session_id: SESSION, created_at: NOW, type: "end_recording", data: { recording_duration: 2.5 } },
  endSession: { session_id: SESSION, created_at: NOW, type: "end_session" },
  postTranscript: { session_id: SESSION, created_at: NOW, type: "post_transcript", data: transcription },
  postFinal: { session_id: SESSION, created_at: NOW, type: "post_final_transcript", data: result },
  ner: {
    session_id: SESSION, created_at: NOW, type: "named_entity_recognition", error: null,
    data: { utterance_id: "0:0", utterance, results: [{ label: "name", entity_type: "name", id: 1, action: "ner", score: 0.9, text: "Alice", start: 0, end: 5 }] },
  },
  sentiment: {
    session_id: SESSION, created_at: NOW, type: "sentiment_analysis", error: null,
    data: { utterance_id: "0:0", utterance, results: [{ sentiment: "positive", emotion: "joy", text: "Hello world.", start: 0.32, end: 1.4, channel: 0 }] },
  },
  translation: {
    session_id: SESSION, created_at: NOW, type: "translation", error: null,
    data: { utterance_id: "0:0", utterance, original_language: "en", target_language: "fr", translated_utterance: { ...utterance, text: "Bonjour le monde.", language: "fr" } },
  },
};

// [sample, our schema, cloud asyncapi schema or null, cloud openapi schema or null]
const messageRows: Array<[string, SchemaName, string | null, string | null]> = [
  ["transcript", "TranscriptMessage", "TranscriptMessage", "TranscriptMessage"],
  ["speechStart", "SpeechStartMessage", "SpeechEventMessage", null],
  ["speechEnd", "SpeechEndMessage", "SpeechEventMessageEnd", null],
  ["ack", "AudioChunkAckMessage", "AudioChunkAckMessage", "AudioChunkAckMessage"],
  ["stopAck", "StopRecordingAckMessage", "StopRecordingAckMessage", "StopRecordingAckMessage"],
  ["startSession", "StartSessionMessage", "SimpleLifecycleMessage", "StartSessionMessage"],
  ["startRecording", "StartRecordingMessage", "SimpleLifecycleMessageStart", "StartRecordingMessage"],
  ["endRecording", "EndRecordingMessage", "EndRecordingMessage", "EndRecordingMessage"],
  ["endSession", "EndSessionMessage", "SimpleLifecycleMessageEndSession", "EndSessionMessage"],
  ["postTranscript", "PostTranscriptMessage", "PostTranscriptMessage", "PostTranscriptMessage"],
  ["postFinal", "PostFinalTranscriptMessage", "PostFinalTranscriptMessage", "PostFinalTranscriptMessage"],
  ["ner", "NamedEntityRecognitionMessage", "NamedEntityRecognitionMessage", "NamedEntityRecognitionMessage"],
  ["sentiment", "SentimentAnalysisMessage", "SentimentAnalysisMessage", "SentimentAnalysisMessage"],
  ["translation", "TranslationMessage", "TranslationMessage", null],
];

describe("WebSocket messages agree with the cloud variant", () => {
  test.each(messageRows)("%s: valid for %s and for the cloud schemas", (sample, ours, cloudAsync, cloudOpen) => {
    expect(check(ours, samples[sample])).toEqual({ ok: true, value: samples[sample] });
    if (cloudAsync) expect(againstCloudAsyncapi(cloudAsync, samples[sample])).toEqual([]);
    if (cloudOpen) expect(againstCloudOpenapi(cloudOpen, samples[sample])).toEqual([]);
  });

  test("utterance and word", () => {
    expect(check("Utterance", utterance).ok).toBe(true);
    expect(againstCloudOpenapi("UtteranceDTO", utterance)).toEqual([]);
    expect(againstCloudAsyncapi("Utterance", utterance)).toEqual([]);
    expect(againstCloudOpenapi("WordDTO", utterance.words[0])).toEqual([]);
  });

  test("an utterance missing a field the cloud requires is refused by ours too", () => {
    const { confidence: _, ...partial } = utterance;
    expect(check("Utterance", partial).ok).toBe(false);
    expect(againstCloudOpenapi("UtteranceDTO", partial)).not.toEqual([]);
  });

  test.each([
    ["transcript", "CallbackTranscript", "CallbackLiveTranscriptMessage"],
    ["ack", "CallbackAudioChunkAck", "CallbackLiveAudioChunkAckMessage"],
    ["endRecording", "CallbackEndRecording", "CallbackLiveEndRecordingMessage"],
    ["postFinal", "CallbackPostFinalTranscript", "CallbackLivePostFinalTranscriptMessage"],
    ["endSession", "CallbackEndSession", "CallbackLiveEndSessionMessage"],
  ] as Array<[string, SchemaName, string]>)("callback envelope of %s", (sample, ours, cloud) => {
    const body = envelope(samples[sample].type, samples[sample]);
    expect(check(ours, body).ok).toBe(true);
    expect(againstCloudOpenapi(cloud, body)).toEqual([]);
  });
});

describe("HTTP bodies agree with the cloud variant", () => {
  test("init body using only options the cloud knows", () => {
    const body = {
      encoding: "wav/pcm", bit_depth: 16, sample_rate: 16000, channels: 1, endpointing: 0.64, maximum_duration_without_endpointing: 30,
      language_config: { languages: ["en"], code_switching: false },
      pre_processing: { audio_enhancer: false },
      realtime_processing: { custom_vocabulary: true, custom_vocabulary_config: { vocabulary: ["Acme"] }, named_entity_recognition: true, sentiment_analysis: true },
      post_processing: { summarization: false, chapterization: false },
      messages_config: { receive_partial_transcripts: true, receive_lifecycle_events: true },
      callback: true, callback_config: { url: "https://hooks.example.com/stt", receive_final_transcripts: true },
      custom_metadata: { user: "alice" },
    };
    expect(check("LiveSessionInit", body).ok).toBe(true);
    expect(againstCloudOpenapi("StreamingRequest", body)).toEqual([]);
  });

  test("messages_config and callback_config defaults match the cloud's", () => {
    const ours = JSON.parse(readFileSync(path.resolve(import.meta.dir, "../../generated/openapi.json"), "utf8")).components.schemas;
    for (const [mine, theirs] of [["MessagesConfig", "MessagesConfig"], ["CallbackConfig", "CallbackConfig"]]) {
      const cloudProps = cloudOpenapi.components.schemas[theirs].properties;
      for (const [flag, schema] of Object.entries<Any>(cloudProps)) {
        if (flag === "url") continue;
        expect([flag, ours[mine].properties[flag]?.default]).toEqual([flag, schema.default]);
      }
    }
  });

  test("init response, session, list and error bodies", () => {
    const init = { id: SESSION, created_at: NOW, url: `ws://localhost:8080/v2/live?token=${SESSION}` };
    expect(check("LiveSessionInitResponse", init).ok).toBe(true);
    expect(againstCloudOpenapi("InitStreamingResponse", init)).toEqual([]);

    const session = {
      id: SESSION, request_id: "G-0a1b2c3d", version: 2, status: "done", created_at: NOW, completed_at: NOW,
      custom_metadata: { user: "alice" }, error_code: null, kind: "live",
      file: { id: SESSION, filename: "recording.flac", source: null, audio_duration: 2.5, number_of_channels: 1 },
      request_params: { encoding: "wav/pcm", bit_depth: 16, sample_rate: 16000, channels: 1 },
      result,
    };
    expect(check("LiveSession", session).ok).toBe(true);
    expect(againstCloudOpenapi("StreamingResponse", session)).toEqual([]);

    const list = {
      first: "http://localhost:8080/v2/live?limit=20",
      current: "http://localhost:8080/v2/live?limit=20",
      next: "http://localhost:8080/v2/live?limit=20&cursor=abc",
      items: [session],
    };
    expect(check("LiveSessionList", list).ok).toBe(true);
    expect(againstCloudOpenapi("ListStreamingResponse", list)).toEqual([]);

    const error = { statusCode: 400, timestamp: NOW, path: "/v2/live", message: "invalid", request_id: "G-0a1b2c3d", validation_errors: ["sample_rate: must be one of 8000, 16000, 32000, 44100, 48000"] };
    expect(check("ErrorResponse", error).ok).toBe(true);
    expect(againstCloudOpenapi("BadRequestErrorResponse", error)).toEqual([]);
  });
});
