/**
 * The generated Ajv validators enforce the contracts: strict objects refuse unknown members,
 * bounds and enums hold, error strings name the field, and the documented defaults validate.
 */
import { describe, expect, test } from "bun:test";
import {
  check,
  clientMessageValidators,
  errorsOf,
  operations,
  serverMessageValidators,
  callbackValidators,
  validateAudioChunkMessage,
  validateAudioChunkAckMessage,
  validateErrorResponse,
  validateLiveDefaults,
  validateLiveSessionInit,
  validateLlmCallbackRequest,
  validators,
} from "../../generated/validators.ts";
import { liveDefaults } from "../../server/options/defaults.ts";

function errorsFor(body: unknown): string[] {
  return validateLiveSessionInit(body) ? [] : errorsOf(validateLiveSessionInit.errors);
}

const SESSION = "6f3c9b8e-4c1e-4d8f-9a51-2f0e7d1c3b2a";
const NOW = "2025-01-01T10:00:00.000Z";

/** The defaults a GET /v2/live/defaults answer may carry (shape of LiveDefaults). */
/** The defaults the service answers on GET /v2/live/defaults. */
const serviceDefaults = liveDefaults;

describe("init body (LiveSessionInit)", () => {
  test.each([
    ["unknown member", { foo: 1 }, "foo: unknown member (not allowed)"],
    ["sample_rate 22050", { sample_rate: 22050 }, "sample_rate: must be one of 8000, 16000, 32000, 44100, 48000"],
    ["end_of_turn.threshold 1", { end_of_turn: { threshold: 1 } }, "end_of_turn.threshold: must be < 1"],
    ["end_of_turn.threshold 0", { end_of_turn: { threshold: 0 } }, "end_of_turn.threshold: must be > 0"],
    ["end_of_turn.silence_ms 10001", { end_of_turn: { silence_ms: 10001 } }, "end_of_turn.silence_ms: must be <= 10000"],
    ["end_of_turn.silence_ms 1.5", { end_of_turn: { silence_ms: 1.5 } }, "end_of_turn.silence_ms: must be integer,null"],
    ["end_of_turn.speech_dbfs 1", { end_of_turn: { speech_dbfs: 1 } }, "end_of_turn.speech_dbfs: must be <= 0"],
    ["end_of_turn unknown member", { end_of_turn: { thresh: 0.5 } }, "end_of_turn.thresh: unknown member (not allowed)"],
    ["diarization_config.max_speakers 0", { diarization_config: { max_speakers: 0 } }, "diarization_config.max_speakers: must be >= 1"],
    ["diarization_config unknown member", { diarization_config: { speakers: 2 } }, "diarization_config.speakers: unknown member (not allowed)"],
    ["channels 0", { channels: 0 }, "channels: must be >= 1"],
    ["encoding", { encoding: "mp3" }, "encoding: must be one of wav/pcm, wav/alaw, wav/ulaw"],
    ["model", { model: "fast" }, "model: must be one of solaria-3, solaria-1, trantoria-1"],
    ["pii threshold", { pii: { threshold: 1.5 } }, "pii.threshold: must be <= 1"],
    ["pii entities toggle member", { pii: { entities: { enable: ["name"], drop: [] } } }, "pii.entities.drop: unknown member (not allowed)"],
    ["named_entity_recognition.entities number", { named_entity_recognition: { entities: 3 } }, "named_entity_recognition.entities: does not match any allowed form"],
    ["callback_config without url", { callback_config: { receive_errors: true } }, "callback_config.url: is required"],
    ["callback_config empty url", { callback_config: { url: "" } }, "callback_config.url: must NOT have fewer than 1 characters"],
    ["callback_config unknown member", { callback_config: { url: "https://x.example/cb", secret: "s" } }, "callback_config.secret: unknown member (not allowed)"],
    ["language code", { language_config: { languages: ["english"] } }, "language_config.languages[0]: must be one of"],
    ["translation target", { realtime_processing: { translation: true, translation_config: { target_languages: ["tlh"] } } }, "realtime_processing.translation_config.target_languages[0]: must be one of"],
    ["vocabulary intensity", { realtime_processing: { custom_vocabulary_config: { vocabulary: [{ value: "Acme", intensity: 2 }] } } }, "realtime_processing.custom_vocabulary_config.vocabulary[0].intensity: must be <= 1"],
  ])("rejects %s", (_label, body, expected) => {
    const errors = errorsFor(body);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.some((e) => e.startsWith(expected))).toBe(true);
  });

  test("reports every invalid field at once", () => {
    const errors = errorsFor({ sample_rate: 22050, end_of_turn: { threshold: 1 }, foo: true });
    expect(errors).toHaveLength(3);
  });

  test("accepts an empty body (every option has a default)", () => {
    expect(errorsFor({})).toEqual([]);
  });

  test("accepts the spec's documented defaults", () => {
    expect(errorsFor({ encoding: "wav/pcm", bit_depth: 16, sample_rate: 16000, endpointing: 0.64, maximum_duration_without_endpointing: null })).toEqual([]);
  });

  test("accepts the defaults answered by GET /v2/live/defaults, used as an init body", () => {
    expect(validateLiveDefaults(serviceDefaults)).toBe(true);
    // `profiles` describes the latency profiles; it is no init option.
    const { callback_config: flags, profiles: _profiles, ...rest } = serviceDefaults;
    expect(errorsFor({ ...rest, callback_config: { url: "https://hooks.example.com/stt", ...flags } })).toEqual([]);
  });

  test("LiveDefaults describes every latency profile, each setting something different", () => {
    const p = serviceDefaults.profiles!;
    expect(Object.keys(p).sort()).toEqual(["accurate", "balanced", "low_latency"]);
    expect(p.low_latency.partial_interval_ms).toBeLessThan(p.balanced.partial_interval_ms);
    expect(p.balanced.partial_interval_ms).toBeLessThan(p.accurate.partial_interval_ms);
    expect(p.accurate.final_beam_size).toBeGreaterThan(p.low_latency.final_beam_size);
    expect([p.low_latency.short_encoder_windows, p.balanced.short_encoder_windows, p.accurate.short_encoder_windows]).toEqual([true, false, false]);
    expect([p.low_latency.short_partial_windows, p.balanced.short_partial_windows, p.accurate.short_partial_windows]).toEqual([true, true, false]);
    const { final_beam_size: _, ...partial } = p.balanced;
    expect(validateLiveDefaults({ ...serviceDefaults, profiles: { ...p, balanced: partial } })).toBe(false);
  });

  test("LiveDefaults requires the end-of-turn members", () => {
    const { silence_ms: _, ...partial } = serviceDefaults.end_of_turn;
    expect(validateLiveDefaults({ ...serviceDefaults, end_of_turn: partial })).toBe(false);
    expect(errorsOf(validateLiveDefaults.errors)).toContain("end_of_turn.silence_ms: is required");
  });

  test("accepts a full body with every option", () => {
    const body = {
      encoding: "wav/alaw", bit_depth: 8, sample_rate: 8000, channels: 2, model: "solaria-3", profile: "low_latency",
      language_config: { languages: ["en", "fr"], code_switching: true },
      endpointing: 0.3, maximum_duration_without_endpointing: 30,
      end_of_turn: { threshold: 0.7, silence_ms: 200, stop_s: 2.5, emit_scores: true, window_s: 4, speech_dbfs: -45, reeval_ms: 0 },
      turn_router: true, numerals: true, punctuation: false,
      diarization: true, diarization_config: { number_of_speakers: 2, max_speakers: 4 },
      named_entity_recognition: { entities: ["name", "location"], threshold: 0.4 },
      pii: { entities: { enable: ["pci"], disable: ["date"] }, threshold: 0.6, return_entities: true },
      pre_processing: { audio_enhancer: true, speech_threshold: 0.5 },
      realtime_processing: {
        custom_vocabulary: true,
        custom_vocabulary_config: { vocabulary: ["Acme", { value: "Kubernetes", intensity: 0.8, pronunciations: ["cube nets"], language: "en" }], default_intensity: 0.5 },
        custom_spelling: true, custom_spelling_config: { spelling_dictionary: { SQL: ["sequel"] } },
        translation: true, translation_config: { target_languages: ["fr", "wo"], model: "base" },
        named_entity_recognition: true, sentiment_analysis: true,
      },
      post_processing: { summarization: true, summarization_config: { type: "concise" }, chapterization: true },
      messages_config: { receive_partial_transcripts: false, receive_acknowledgments: true },
      callback: true, callback_config: { url: "https://hooks.example.com/stt", receive_errors: true },
      custom_metadata: { user: "alice", tags: ["a"] },
    };
    expect(errorsFor(body)).toEqual([]);
  });
});

describe("WebSocket messages", () => {
  test("audio_chunk: accepts base64 data.chunk, rejects extra members", () => {
    expect(validateAudioChunkMessage({ type: "audio_chunk", data: { chunk: "AAECAw==" } })).toBe(true);
    expect(validateAudioChunkMessage({ type: "audio_chunk", data: { chunk: "AAECAw==" }, seq: 1 })).toBe(false);
    expect(errorsOf(validateAudioChunkMessage.errors)).toEqual(["seq: unknown member (not allowed)"]);
    expect(validateAudioChunkMessage({ type: "audio_chunk", data: { chunk: "AAECAw==", extra: 1 } })).toBe(false);
    expect(errorsOf(validateAudioChunkMessage.errors)).toEqual(["data.extra: unknown member (not allowed)"]);
    expect(validateAudioChunkMessage({ type: "audio_chunk", data: { chunk: "not base64!" } })).toBe(false);
  });

  test("ack: integer ms time_range, strict", () => {
    const ack = { session_id: SESSION, created_at: NOW, type: "audio_chunk", acknowledged: true, error: null, data: { byte_range: [0, 32000], time_range: [0, 1000] } };
    expect(validateAudioChunkAckMessage(ack)).toBe(true);
    expect(validateAudioChunkAckMessage({ ...ack, data: { byte_range: [0, 32000], time_range: [0, 0.5] } })).toBe(false);
    expect(errorsOf(validateAudioChunkAckMessage.errors)).toEqual(["data.time_range[1]: must be integer"]);
    expect(validateAudioChunkAckMessage({ ...ack, message_id: "x" })).toBe(false);
  });

  test("dispatch tables cover every message type", () => {
    expect(Object.keys(serverMessageValidators).sort()).toEqual(
      ["audio_chunk", "end_of_turn", "end_of_turn_score", "end_recording", "end_session", "error", "named_entity_recognition", "pii", "post_final_transcript", "post_transcript", "sentiment_analysis", "speech_end", "speech_start", "start_recording", "stop_recording", "transcript", "translation"],
    );
    expect(Object.keys(clientMessageValidators).sort()).toEqual(["audio_chunk", "stop_recording"]);
    expect(Object.keys(callbackValidators)).toHaveLength(15);
  });

  test("ServerMessage union reports an unknown type by name", () => {
    const result = check("ServerMessage", { type: "nope", session_id: SESSION });
    expect(result).toEqual({ ok: false, errors: ['type: unknown value "nope"'] });
  });

  test("end_of_turn and end_of_turn_score", () => {
    const eot = { type: "end_of_turn", session_id: SESSION, created_at: NOW, data: { channel: 0, probability: 0.91, reason: "model", end: 3.2, speech_duration: 2.1 } };
    expect(check("EndOfTurnMessage", eot).ok).toBe(true);
    expect(check("EndOfTurnMessage", { ...eot, data: { ...eot.data, reason: "silence" } }).ok).toBe(false);
    const { speech_duration: _, ...missing } = eot.data;
    expect(check("EndOfTurnMessage", { ...eot, data: missing })).toEqual({ ok: false, errors: ["data.speech_duration: is required"] });
    const score = { type: "end_of_turn_score", session_id: SESSION, created_at: NOW, data: { channel: 0, probability: 0.4, threshold: 0.5, silence_ms: 300, time: 3.1, ended: false } };
    expect(serverMessageValidators.end_of_turn_score(score)).toBe(true);
  });

  test("error message allows extra members and a null session", () => {
    expect(serverMessageValidators.error({ type: "error", session_id: null, error: { message: "boom" }, code: 7 })).toBe(true);
  });
});

describe("HTTP bodies", () => {
  test("ErrorResponse: strict, request_id pattern", () => {
    const body = { statusCode: 400, timestamp: NOW, path: "/v2/live", message: "invalid", request_id: "G-0a1b2c3d", validation_errors: ["x: y"], error: null };
    expect(validateErrorResponse(body)).toBe(true);
    expect(validateErrorResponse({ ...body, request_id: "G-XYZ" })).toBe(false);
    expect(validateErrorResponse({ ...body, extra: 1 })).toBe(false);
  });

  test("LLM callback body", () => {
    const body = { request_id: "G-0a1b2c3d", customer_id: "c1", status: "ok", data: [] };
    expect(validateLlmCallbackRequest(body)).toBe(true);
    expect(validateLlmCallbackRequest({ ...body, data: "text" })).toBe(false);
    expect(validateLlmCallbackRequest({ ...body, customer_id: "x".repeat(101) })).toBe(false);
  });

  test("validators lookup and operation table", () => {
    expect(validators.LiveSessionInit).toBe(validateLiveSessionInit);
    expect(operations.map((o) => o.operationId).sort()).toEqual([
      "createLiveSession", "deleteLiveSession", "getHealth", "getLiveCapabilities", "getLiveDefaults", "getLiveSession", "getLiveSessionRecording", "getLiveness", "getReadiness", "listLiveSessions", "storeLlmCallback",
    ]);
    expect(operations.find((o) => o.operationId === "deleteLiveSession")?.statuses).toEqual([202, 401, 403, 404, 503]);
  });
});

describe("init body: values the service refuses (x-refused) are outside the schema, with the contract's wording", () => {
  test("a refused value is one line naming the field and why; its default is accepted", () => {
    const v = validators.LiveSessionInit;
    expect(v({ realtime_processing: { words_accurate_timestamps: false } })).toBe(true);
    expect(v({ realtime_processing: { translation: true, translation_config: { target_languages: ["en"], model: "batch" } } })).toBe(false);
    expect(errorsOf(v.errors)).toEqual(['realtime_processing.translation_config.model: "batch" is not offered: only the base translation tier runs in this service']);
  });
});
