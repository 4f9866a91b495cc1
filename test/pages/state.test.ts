/**
 * What the playground makes of the server messages (web/playground/state.ts), fed with messages
 * that the contract's validators accept: partials replaced by finals, markers in order, entities and
 * redactions attached to their utterance, acks.
 */
import { describe, expect, test } from "bun:test";
import { serverMessageValidators } from "../../generated/validators.ts";
import type { ServerMessage } from "../../generated/openapi/types.gen.ts";
import { apply, initialState, type PlaygroundState } from "../../web/playground/state.ts";

const session_id = "1ffd059c-17ea-40a8-8aef-70fd0307db82";
const created_at = "2026-03-01T12:00:00.000Z";
const utterance = (text: string, start: number, end: number) => ({ start, end, confidence: 0.9, channel: 0, words: [], text, language: "en" });

function valid(message: Record<string, unknown>): ServerMessage {
  const type = String(message.type);
  const validate = serverMessageValidators[type]!;
  if (!validate(message)) throw new Error(`${type}: ${JSON.stringify(validate.errors)}`);
  return message as ServerMessage;
}

const feed = (messages: Record<string, unknown>[]): PlaygroundState => messages.map(valid).reduce((s, m, i) => apply(s, m, i), initialState());

describe("playground state", () => {
  test("a partial shows until the final of the same utterance replaces it; markers keep their order", () => {
    const partial = feed([
      { session_id, created_at, type: "speech_start", data: { time: 0.5, channel: 0 } },
      { session_id, created_at, type: "transcript", data: { id: "u1", is_final: false, utterance: utterance("and so my", 0.5, 1.2) } },
    ]);
    expect(partial.partial).toEqual({ id: "u1", text: "and so my" });
    const final = apply(partial, valid({ session_id, created_at, type: "transcript", data: { id: "u1", is_final: true, utterance: utterance("And so my fellow Americans", 0.5, 2.1) } }), 3);
    const next = apply(final, valid({ session_id, created_at, type: "speech_end", data: { time: 2.2, channel: 0 } }), 4);
    const eot = apply(next, valid({ session_id, created_at, type: "end_of_turn", data: { channel: 0, probability: 0.93, reason: "model", end: 2.3, speech_duration: 1.8 } }), 5);
    expect(eot.partial).toBeNull();
    expect(eot.timeline.map((i) => (i.kind === "utterance" ? i.utterance.text : `${i.type}@${i.time}`))).toEqual([
      "speech_start@0.5",
      "And so my fellow Americans",
      "speech_end@2.2",
      "end_of_turn@2.3",
    ]);
    expect(eot.timeline[3]).toMatchObject({ detail: "model, p=0.93" });
  });

  test("a final arriving after later speech markers takes its place in the order of the audio", () => {
    const state = feed([
      { session_id, created_at, type: "speech_start", data: { time: 0.3, channel: 0 } },
      { session_id, created_at, type: "speech_end", data: { time: 2.2, channel: 0 } },
      { session_id, created_at, type: "speech_start", data: { time: 3.1, channel: 0 } },
      { session_id, created_at, type: "transcript", data: { id: "u1", is_final: true, utterance: utterance("And so, my fellow Americans.", 0.1, 2.2) } },
      { session_id, created_at, type: "speech_end", data: { time: 4.4, channel: 0 } },
      { session_id, created_at, type: "transcript", data: { id: "u2", is_final: true, utterance: utterance("Ask not!", 3.0, 4.4) } },
    ]);
    expect(state.timeline.map((i) => (i.kind === "utterance" ? i.utterance.text : `${i.type}@${i.time}`))).toEqual([
      "speech_start@0.3",
      "And so, my fellow Americans.",
      "speech_end@2.2",
      "speech_start@3.1",
      "Ask not!",
      "speech_end@4.4",
    ]);
  });

  test("pii redacts the final's text and lists its entities; entities attach to their utterance", () => {
    const state = feed([
      { session_id, created_at, type: "transcript", data: { id: "u1", is_final: true, utterance: utterance("call John at 555 0100", 0, 2) } },
      { session_id, created_at, type: "transcript", data: { id: "u2", is_final: true, utterance: utterance("in Paris", 2.5, 3) } },
      {
        session_id, created_at, type: "pii",
        data: { utterance_id: "u1", utterance: utterance("call [NAME_1] at [PHONE_NUMBER_1]", 0, 2), entities: [{ label: "name", id: 1, action: "mask", score: 0.9, start: 5, end: 13 }] },
      },
      {
        session_id, created_at, type: "named_entity_recognition", error: null,
        data: { utterance_id: "u2", utterance: utterance("in Paris", 2.5, 3), results: [{ label: "location_city", entity_type: "location_city", text: "Paris", start: 3, end: 8 }] },
      },
    ]);
    const [u1, u2] = state.timeline;
    expect(u1).toMatchObject({ redacted: "call [NAME_1] at [PHONE_NUMBER_1]", entities: [{ label: "name", action: "mask" }] });
    expect(u2).toMatchObject({ entities: [{ label: "location_city", text: "Paris" }] });
    expect(u2).not.toHaveProperty("redacted");
  });

  test("acks advance the acknowledged range; lifecycle and errors are listed; empty finals are dropped", () => {
    const state = feed([
      { session_id, created_at, type: "start_recording" },
      { session_id, created_at, type: "audio_chunk", acknowledged: true, error: null, data: { byte_range: [0, 3200], time_range: [0, 100] } },
      { session_id, created_at, type: "audio_chunk", acknowledged: true, error: null, data: { byte_range: [3200, 6400], time_range: [100, 200] } },
      { session_id, created_at, type: "transcript", data: { id: "u9", is_final: true, utterance: utterance(" ", 0, 0.1) } },
      { session_id, created_at, type: "stop_recording", acknowledged: true, error: null, data: { recording_duration: 0.2, recording_left_to_process: 0 } },
      { type: "error", session_id, created_at, error: { message: "inference failed" } },
      { session_id, created_at, type: "end_session" },
    ]);
    expect(state.acked).toEqual({ ms: 200, bytes: 6400, count: 2 });
    expect(state.stopAcknowledged).toBe(true);
    expect(state.timeline).toEqual([]);
    expect(state.lifecycle).toEqual(["start_recording", "end_session"]);
    expect(state.errors).toEqual(['{"message":"inference failed"}']);
    expect(state.log.map((l) => l.type)).toHaveLength(7);
  });
});
