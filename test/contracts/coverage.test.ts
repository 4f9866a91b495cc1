/**
 * Every item of the specification is present in the contracts, with every `$ref` resolved:
 * one table row per spec item (operations, statuses, init options, bounds, messages, close codes).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import $RefParser from "@apidevtools/json-schema-ref-parser";
import { Parser } from "@asyncapi/parser";
import { bundleDocument } from "../../contracts/tools/bundle.ts";

const root = path.resolve(import.meta.dir, "../..");
const openapiFile = path.join(root, "contracts", "openapi.yaml");
const asyncapiFile = path.join(root, "contracts", "asyncapi.yaml");

// biome-ignore lint/suspicious/noExplicitAny: documents are walked dynamically.
type Any = any;
let openapi: Any;
let asyncapi: Any;
let asyncapiRaw: Any;

beforeAll(async () => {
  openapi = await $RefParser.dereference(openapiFile);
  const parser = new Parser();
  const parsed = await parser.parse(readFileSync(asyncapiFile, "utf8"), { source: asyncapiFile });
  expect(parsed.diagnostics.filter((d) => d.severity === 0)).toEqual([]);
  asyncapi = parsed.document;
  asyncapiRaw = asyncapi?.json();
});

const operations: Array<[string, string, string, number[]]> = [
  ["post", "/v2/live", "createLiveSession", [201, 400, 401, 402, 403, 429, 500, 503]],
  ["get", "/v2/live", "listLiveSessions", [200, 400, 401, 403, 503]],
  ["get", "/v2/live/{id}", "getLiveSession", [200, 401, 403, 404, 503]],
  ["delete", "/v2/live/{id}", "deleteLiveSession", [202, 401, 403, 404, 503]],
  ["get", "/v2/live/{id}/file", "getLiveSessionRecording", [200, 206, 302, 401, 403, 404, 503]],
  ["get", "/v2/live/defaults", "getLiveDefaults", [200, 401, 403]],
  ["get", "/v2/live/capabilities", "getLiveCapabilities", [200, 401, 403]],
  ["post", "/v1/callbacks/large-language-model", "storeLlmCallback", [204, 401]],
];

describe("HTTP operations", () => {
  test.each(operations)("%s %s is %s with its statuses", (method, route, id, statuses) => {
    const op = openapi.paths[route]?.[method];
    expect(op).toBeDefined();
    expect(op.operationId).toBe(id);
    const documented = Object.keys(op.responses).map(Number);
    for (const status of statuses) expect(documented).toContain(status);
  });

  test.each(operations)("%s %s: every error status carries ErrorResponse and every response x-request-id", (method, route) => {
    const op = openapi.paths[route][method];
    for (const [status, response] of Object.entries<Any>(op.responses)) {
      expect(response.headers?.["x-request-id"]?.schema?.pattern).toBe("^G-[0-9a-f]{8}$");
      if (Number(status) >= 400) {
        const schema = response.content["application/json"].schema;
        expect(schema.additionalProperties).toBe(false);
        expect(schema.required).toEqual(["statusCode", "timestamp", "path", "message", "request_id"]);
        expect(schema.properties.request_id.pattern).toBe("^G-[0-9a-f]{8}$");
        expect(schema.properties.validation_errors.type).toEqual(["array", "null"]);
        expect(schema.properties.error.type).toEqual(["string", "null"]);
      }
    }
  });

  test("only spec statuses appear on the live operations (no invented error codes)", () => {
    for (const [method, route, , statuses] of operations.slice(0, 7)) {
      const documented = Object.keys(openapi.paths[route][method].responses).map(Number);
      expect(documented.sort()).toEqual([...statuses].sort());
    }
  });

  test("security: apiKey in header x-service-key (or its alias x-gladia-key), applied globally", () => {
    const schemes = Object.values<Any>(openapi.components.securitySchemes);
    expect(schemes).toContainEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "x-service-key" }));
    expect(schemes).toContainEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "x-gladia-key" }));
    const names = Object.keys(openapi.components.securitySchemes);
    expect(openapi.security).toEqual(names.map((name) => ({ [name]: [] })));
  });
});

const initOptions = [
  "encoding", "bit_depth", "sample_rate", "channels", "model", "language_config", "messages_config",
  "profile", "end_of_turn", "turn_router", "numerals", "punctuation", "diarization", "diarization_config",
  "named_entity_recognition", "pii", "endpointing", "maximum_duration_without_endpointing", "pre_processing",
  "realtime_processing", "post_processing", "callback", "callback_config", "custom_metadata",
];

describe("POST /v2/live body", () => {
  const body = () => openapi.paths["/v2/live"].post.requestBody.content["application/json"].schema;

  test("is strict", () => expect(body().additionalProperties).toBe(false));
  test.each(initOptions)("option %s is accepted", (name) => expect(body().properties[name]).toBeDefined());

  test.each([
    ["encoding", ["wav/pcm", "wav/alaw", "wav/ulaw"], "wav/pcm"],
    ["bit_depth", [8, 16, 24, 32], 16],
    ["sample_rate", [8000, 16000, 32000, 44100, 48000], 16000],
    ["model", ["solaria-3", "solaria-1", "trantoria-1"], "solaria-1"],
  ])("%s: allowed values and default", (name, values, fallback) => {
    expect(body().properties[name].enum).toEqual(values);
    expect(body().properties[name].default).toBe(fallback);
  });

  test("endpointing defaults to 0.64 and maximum_duration_without_endpointing to no limit", () => {
    expect(body().properties.endpointing.default).toBe(0.64);
    expect(body().properties.maximum_duration_without_endpointing.default).toBeNull();
  });

  test.each([
    ["threshold", { exclusiveMinimum: 0, exclusiveMaximum: 1 }],
    ["silence_ms", { exclusiveMinimum: 0, maximum: 10000 }],
    ["stop_s", { exclusiveMinimum: 0, maximum: 60 }],
    ["window_s", { exclusiveMinimum: 0, maximum: 8 }],
    ["speech_dbfs", { minimum: -100, maximum: 0 }],
    ["reeval_ms", { minimum: 0, maximum: 10000 }],
    ["emit_scores", {}],
  ])("end_of_turn.%s bounds", (member, bounds) => {
    const schema = body().properties.end_of_turn.properties[member];
    expect(schema).toMatchObject(bounds);
    expect(schema.type).toContain("null");
    expect(schema.default).toBeNull();
  });

  test("integers where the spec says integer", () => {
    const eot = body().properties.end_of_turn.properties;
    expect(eot.silence_ms.type).toEqual(["integer", "null"]);
    expect(eot.reeval_ms.type).toEqual(["integer", "null"]);
  });

  test.each([["diarization_config"], ["named_entity_recognition"], ["pii"], ["callback_config"]])("%s has no unknown members", (name) => {
    expect(body().properties[name].additionalProperties).toBe(false);
  });

  test("diarization_config bounds", () => {
    const props = body().properties.diarization_config.properties;
    expect(props.number_of_speakers).toMatchObject({ type: "integer", minimum: 1 });
    expect(props.max_speakers).toMatchObject({ type: "integer", minimum: 1 });
  });

  test("EntitySelection: entities forms, threshold 0..1 default 0.5; pii adds return_entities", () => {
    const ner = body().properties.named_entity_recognition.properties;
    expect(ner.entities.anyOf.map((s: Any) => s.type)).toEqual(["string", "array", "object"]);
    expect(ner.entities.anyOf[2].properties).toHaveProperty("enable");
    expect(ner.entities.anyOf[2].properties).toHaveProperty("disable");
    expect(ner.threshold).toMatchObject({ minimum: 0, maximum: 1, default: 0.5 });
    expect(body().properties.pii.properties.return_entities.type).toBe("boolean");
  });

  const callbackDefaults: Array<[string, boolean]> = [
    ["receive_partial_transcripts", false], ["receive_final_transcripts", true], ["receive_speech_events", false],
    ["receive_pre_processing_events", true], ["receive_realtime_processing_events", true],
    ["receive_post_processing_events", true], ["receive_acknowledgments", false], ["receive_errors", false],
    ["receive_lifecycle_events", true],
  ];
  test.each(callbackDefaults)("callback_config.%s defaults to %p; messages_config has it", (flag, fallback) => {
    expect(body().properties.callback_config.properties[flag].default).toBe(fallback);
    expect(body().properties.messages_config.properties[flag].type).toBe("boolean");
  });

  test("callback_config.url is a required URI of at least one character", () => {
    const cfg = body().properties.callback_config;
    expect(cfg.required).toContain("url");
    expect(cfg.properties.url).toMatchObject({ type: "string", format: "uri", minLength: 1 });
  });

  test("custom vocabulary, custom spelling and translation targets", () => {
    const rt = body().properties.realtime_processing.properties;
    expect(rt.custom_vocabulary_config.required).toEqual(["vocabulary"]);
    const item = rt.custom_vocabulary_config.properties.vocabulary.items.anyOf[1];
    expect(Object.keys(item.properties)).toEqual(["value", "intensity", "pronunciations", "language"]);
    expect(rt.custom_vocabulary_config.properties.default_intensity).toMatchObject({ minimum: 0, maximum: 1, default: null });
    expect(rt.custom_spelling_config.required).toEqual(["spelling_dictionary"]);
    const targets = rt.translation_config.properties.target_languages.items.enum;
    expect(targets).toEqual("af am ar as be bg bn ca da de en es fa fr gl id it ja km ko ln lo ms my ne nl no ps pt ro ru so sv th vi wo yo zh".split(" "));
  });

  test("region query parameter", () => {
    const region = openapi.paths["/v2/live"].post.parameters.find((p: Any) => p.name === "region");
    expect(region).toMatchObject({ in: "query", schema: { enum: ["eu", "us", "eu-west", "us-west"] } });
  });
});

describe("other HTTP shapes", () => {
  test.each([
    ["limit", { minimum: 1, maximum: 100, default: 20 }],
    ["offset", { minimum: 0, maximum: 1000, default: 0 }],
    ["cursor", { type: "string" }],
    ["date", { format: "date" }],
    ["after_date", { format: "date-time" }],
    ["before_date", { format: "date-time" }],
    ["custom_metadata", { type: "object", additionalProperties: { type: "string" } }],
  ])("GET /v2/live parameter %s", (name, schema) => {
    const param = openapi.paths["/v2/live"].get.parameters.find((p: Any) => p.name === name);
    expect(param?.schema).toMatchObject(schema);
  });

  test("GET /v2/live status is a repeated form parameter; custom_metadata one deepObject parameter", () => {
    const params = openapi.paths["/v2/live"].get.parameters;
    const status = params.find((p: Any) => p.name === "status");
    expect(status).toMatchObject({ style: "form", explode: true, schema: { type: "array" } });
    expect(status.schema.items.enum).toEqual(["queued", "processing", "done", "error"]);
    expect(params.filter((p: Any) => p.name.startsWith("custom_metadata"))).toEqual([expect.objectContaining({ name: "custom_metadata", style: "deepObject", explode: true })]);
  });

  test("recording: audio/flac, Range → 206 with Content-Range, 302 with Location", () => {
    const op = openapi.paths["/v2/live/{id}/file"].get;
    expect(op.parameters.find((p: Any) => p.name === "Range" && p.in === "header")).toBeDefined();
    expect(op.responses["200"].content["audio/flac"].schema.format).toBe("binary");
    expect(op.responses["206"].headers["Content-Range"]).toBeDefined();
    expect(op.responses["302"].headers.Location).toBeDefined();
    expect(op.responses["202"]).toBeUndefined();
  });

  test("session id is a UUID path parameter; delete answers 202 with no body", () => {
    const id = openapi.paths["/v2/live/{id}"].parameters[0];
    expect(id).toMatchObject({ in: "path", required: true, schema: { format: "uuid" } });
    expect(openapi.paths["/v2/live/{id}"].delete.responses["202"].content).toBeUndefined();
  });

  test("init response and session", () => {
    const init = openapi.paths["/v2/live"].post.responses["201"].content["application/json"].schema;
    expect(init.required).toEqual(expect.arrayContaining(["id", "url"]));
    expect(init.properties.id.format).toBe("uuid");
    const session = openapi.paths["/v2/live/{id}"].get.responses["200"].content["application/json"].schema;
    for (const field of ["id", "status", "created_at", "result", "custom_metadata", "request_params"]) {
      expect(session.properties).toHaveProperty(field);
    }
    expect(session.properties.status.enum).toEqual(["queued", "processing", "done", "error"]);
    const list = openapi.paths["/v2/live"].get.responses["200"].content["application/json"].schema;
    expect(list.properties).toHaveProperty("items");
    expect(list.properties).toHaveProperty("next");
  });

  test("defaults: end-of-turn members required", () => {
    const schema = openapi.paths["/v2/live/defaults"].get.responses["200"].content["application/json"].schema;
    expect(schema.properties.end_of_turn.required).toEqual(["threshold", "silence_ms", "stop_s", "reeval_ms", "window_s", "speech_dbfs"]);
    expect(schema.properties.end_of_turn.properties.silence_ms.type).toBe("integer");
    expect(schema.properties.end_of_turn.properties.reeval_ms.type).toBe("integer");
  });

  test("capabilities: per-model languages, features, translation targets and profiles", () => {
    const schema = openapi.paths["/v2/live/capabilities"].get.responses["200"].content["application/json"].schema;
    const model = schema.properties.models.items;
    expect(model.required).toEqual(["model", "languages", "features", "translation_targets", "profiles"]);
    expect(model.properties.features.items.enum).toEqual(
      expect.arrayContaining(["custom_vocabulary", "punctuation", "numerals", "named_entity_recognition", "pii", "end_of_turn", "number_hold", "sentiment_analysis", "diarization", "translation"]),
    );
  });

  test("LLM callback body: all members required with the spec constraints", () => {
    const schema = openapi.paths["/v1/callbacks/large-language-model"].post.requestBody.content["application/json"].schema;
    expect(schema.required).toEqual(["request_id", "customer_id", "status", "data"]);
    expect(schema.properties.request_id.pattern).toBe("^G-[0-9a-f]{8}$");
    expect(schema.properties.customer_id.maxLength).toBe(100);
    expect(schema.properties.status.maxLength).toBe(100);
    expect(schema.properties.data.anyOf.map((b: Any) => b.type)).toEqual(["object", "array"]);
  });
});

// [type, callback column of the spec]
const serverMessages: Array<[string, boolean]> = [
  ["start_session", true], ["start_recording", true], ["transcript", true], ["speech_start", true],
  ["speech_end", true], ["named_entity_recognition", true], ["pii", false], ["sentiment_analysis", true],
  ["translation", true], ["end_of_turn", false], ["end_of_turn_score", false], ["audio_chunk", true],
  ["stop_recording", true], ["end_recording", true], ["post_transcript", true], ["post_final_transcript", true],
  ["end_session", true], ["error", true],
];

function asyncMessages(direction: string): Any[] {
  return Object.values<Any>(asyncapiRaw.components.messages).filter((m) => m["x-direction"] === direction);
}

describe("WebSocket messages", () => {
  test("channel /v2/live with a ws binding requiring the token query parameter", () => {
    const channel = asyncapiRaw.channels.liveSession;
    expect(channel.address).toBe("/v2/live");
    expect(channel.bindings.ws.query.required).toEqual(["token"]);
    expect(openapi["x-websocket"].path).toBe("/v2/live");
    expect(openapi["x-websocket"].query.token.required).toBe(true);
  });

  test.each([["audio_chunk"], ["audio_chunk_binary"], ["stop_recording"]])("client message %s", (name) => {
    expect(asyncMessages("client").map((m) => m.name)).toContain(name);
    expect(openapi["x-websocket"].clientMessages[name]).toBeDefined();
  });

  test("audio_chunk: base64 data.chunk, no unknown members", () => {
    const payload = asyncMessages("client").find((m) => m.name === "audio_chunk").payload;
    expect(payload.additionalProperties).toBe(false);
    expect(payload.properties.data.additionalProperties).toBe(false);
    expect(payload.properties.data.properties.chunk.contentEncoding).toBe("base64");
  });

  test.each(serverMessages)("server message %s (callback: %p)", (type, callback) => {
    const message = asyncMessages("server").find((m) => m.name === type);
    expect(message).toBeDefined();
    expect(message.payload.properties.type.const).toBe(type);
    expect(message["x-callback"]).toBe(callback);
    expect(openapi["x-websocket"].serverMessages[type].callback).toBe(callback);
    const envelope = asyncMessages("callback").find((m) => m.name === `live.${type}`);
    if (callback) {
      expect(envelope.payload.required).toEqual(["id", "event", "payload"]);
      expect(envelope.payload.properties.event.const).toBe(`live.${type}`);
      expect(envelope.payload.properties.payload.properties.type.const).toBe(type);
      expect(openapi.webhooks[`live.${type}`]).toBeDefined();
    } else {
      expect(envelope).toBeUndefined();
    }
  });

  test("start_session is callback-only", () => {
    expect(asyncMessages("server").find((m) => m.name === "start_session")["x-delivery"]).toBe("callback-only");
    const sent = Object.keys(asyncapiRaw.channels.liveSession.messages).map((k) => asyncapiRaw.channels.liveSession.messages[k].name);
    expect(sent).not.toContain("start_session");
  });

  test("acknowledgment: strict, byte_range and time_range (ms) as integer pairs", () => {
    const ack = asyncMessages("server").find((m) => m.name === "audio_chunk").payload;
    expect(ack.additionalProperties).toBe(false);
    expect(ack.required).toEqual(["session_id", "created_at", "type", "acknowledged", "data"]);
    for (const range of ["byte_range", "time_range"]) {
      expect(ack.properties.data.properties[range]).toMatchObject({ minItems: 2, maxItems: 2, items: { type: "integer" } });
    }
  });

  test("end_of_turn: data members required, reason model|timeout|null", () => {
    const eot = asyncMessages("server").find((m) => m.name === "end_of_turn").payload;
    expect(eot.properties.data.required).toEqual(["channel", "probability", "reason", "end", "speech_duration"]);
    const reason = eot.properties.data.properties.reason;
    expect(reason.oneOf.map((b: Any) => b.enum ?? b.type)).toEqual([["model", "timeout"], "null"]);
  });

  test("error: extra members allowed, session_id nullable", () => {
    const err = asyncMessages("server").find((m) => m.name === "error").payload;
    expect(err.required).toEqual(["type"]);
    expect(err.additionalProperties).not.toBe(false);
    expect(err.properties.session_id.type).toEqual(["string", "null"]);
  });

  test.each([[1000], [1011], [1012], [4401]])("close code %d is documented in both contracts", (code) => {
    expect(asyncapiRaw.channels.liveSession["x-close-codes"].map((c: Any) => c.code)).toContain(code);
    expect(openapi["x-websocket"].closeCodes.map((c: Any) => c.code)).toContain(code);
  });

  test("1011 rejected: reasons and the 429 handshake refusal", () => {
    const codes = asyncapiRaw.channels.liveSession["x-close-codes"];
    expect(codes.find((c: Any) => c.code === 1011).reasonPrefix).toBe("rejected:");
    expect(asyncapiRaw.channels.liveSession["x-handshake-refusals"][0].status).toBe(429);
    expect(openapi["x-websocket"].handshakeRefusals[0].status).toBe(429);
  });
});

describe("generated documents", () => {
  const read = (name: string) => JSON.parse(readFileSync(path.join(root, "generated", name), "utf8"));

  test.each([["openapi.json"], ["asyncapi.json"]])("%s is self-contained", (name) => {
    const refs = [...JSON.stringify(read(name)).matchAll(/"\$ref":"([^"]*)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(10);
    expect(refs.filter((ref) => !ref.startsWith("#/"))).toEqual([]);
  });

  test.each([["openapi.json", openapiFile], ["asyncapi.json", asyncapiFile]])("%s is up to date with contracts/", (name, source) => {
    expect(read(name)).toEqual(JSON.parse(JSON.stringify(bundleDocument(source))));
  });

  test("shared schemas are defined once and reused by both documents", () => {
    const o = read("openapi.json").components.schemas;
    const a = read("asyncapi.json").components.schemas;
    for (const name of ["Utterance", "Word", "EndOfTurnConfig", "EntitySelection", "Entity", "ErrorResponse", "TranscriptMessage"]) {
      expect(a[name]).toEqual(o[name]);
    }
  });
});
