/** Message builders follow the contract: shapes the generated validators accept, and the delivery rules of each type. */
import { describe, expect, test } from "bun:test";
import { check } from "../../generated/validators.ts";
import { byCallback, flagOf, isEssential, MessageFactory, onSocket } from "./messages.ts";

const m = new MessageFactory("3f8a1c2e-9b7d-4e21-8f3a-2c1d0e9b7a65", () => Date.parse("2026-01-01T00:00:00Z"));
const utterance = { start: 0, end: 1.2344, confidence: 1, channel: 0, words: [], text: "hi", language: "en" };

describe("session messages", () => {
  test("built messages validate against their contract schemas", () => {
    const built = [
      ["StartRecordingMessage", m.startRecording()],
      ["TranscriptMessage", m.transcript("0:1", true, utterance)],
      ["SpeechStartMessage", m.speech("speech_start", 0.1234, 0)],
      ["AudioChunkAckMessage", m.audioChunkAck([0, 3200], [0, 100])],
      ["StopRecordingAckMessage", m.stopRecordingAck(1.5, -1)],
      ["EndRecordingMessage", m.endRecording(1.5)],
      ["EndSessionMessage", m.endSession()],
      ["ErrorMessage", m.error("bad", "bad_request")],
      ["StartSessionMessage", m.startSession()],
    ] as const;
    for (const [schema, message] of built) {
      const r = check(schema, message);
      expect([schema, r.ok ? [] : r.errors]).toEqual([schema, []]);
    }
    expect(m.speech("speech_end", 0.12345, 1).data).toEqual({ time: 0.123, channel: 1 });
    expect(m.stopRecordingAck(1.5, -1).data!.recording_left_to_process).toBe(0);
  });

  test("delivery rules: flags, socket, callback, essential", () => {
    expect(flagOf(m.transcript("0:1", false, utterance))).toBe("receive_partial_transcripts");
    expect(flagOf(m.transcript("0:1", true, utterance))).toBe("receive_final_transcripts");
    expect(flagOf(m.startSession())).toBe("receive_lifecycle_events");
    expect(flagOf(m.audioChunkAck([0, 1], [0, 1]))).toBe("receive_acknowledgments");
    expect(flagOf(m.build("end_of_turn", { data: { channel: 0, time: 1, reason: "silence" } } as never))).toBeNull();
    expect(onSocket(m.startSession())).toBe(false);
    expect(byCallback(m.startSession())).toBe(true);
    expect(onSocket(m.error("x"))).toBe(true);
    expect(byCallback(m.build("pii", {} as never))).toBe(false);
    expect(isEssential(m.transcript("0:1", false, utterance))).toBe(false);
    expect(isEssential(m.endRecording(1))).toBe(true);
  });
});
