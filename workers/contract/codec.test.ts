import { describe, expect, test } from "bun:test";
import { audioToBytes, bytesToAudio, decodeJob, decodeReply, encodeJob, encodeReply, jobKey, validateJob } from "./codec.ts";

const job = {
  sessionId: "s1",
  utteranceId: "0:4",
  seq: 2,
  model: "trantoria-1" as const,
  request: { audio: new Float32Array([0, 0.5, -1, 1e-7]), partial: true, languages: ["en"], streamKey: "s1/0:4", vocabulary: [{ phrase: "Bun", intensity: 0.5 }] },
};

describe("job and reply wire format", () => {
  test("a job survives encoding with its audio bit-exact and every option kept", () => {
    const fields = encodeJob(job, "stt:replies:g1", 1234);
    const decoded = decodeJob({ meta: Buffer.from(fields.meta), audio: fields.audio });
    expect(decoded.meta).toMatchObject({ key: jobKey(job), reply: "stt:replies:g1", submittedAt: 1234, model: "trantoria-1" });
    expect(decoded.job.request.audio).toEqual(job.request.audio);
    // The priority travels too, by default that of a partial request.
    expect({ ...decoded.job, request: { ...decoded.job.request, audio: undefined } }).toEqual({ ...job, priority: "partial", request: { ...job.request, audio: undefined } });
  });

  test("a job's priority travels; one from an older gateway (none) or an unknown one", () => {
    const background = encodeJob({ ...job, request: { ...job.request, partial: false }, priority: "background" }, "r", 0);
    expect(decodeJob({ meta: Buffer.from(background.meta), audio: background.audio }).job.priority).toBe("background");
    const meta = JSON.parse(encodeJob(job, "r", 0).meta);
    const without = decodeJob({ meta: Buffer.from(JSON.stringify({ ...meta, priority: undefined })), audio: background.audio });
    expect(without.job.priority).toBeUndefined();
    expect(() => decodeJob({ meta: Buffer.from(JSON.stringify({ ...meta, priority: "soon" })), audio: background.audio })).toThrow(/unknown priority "soon"/);
    expect(() => validateJob({ ...job, priority: "soon" as never })).toThrow(/unknown priority "soon"/);
  });

  test("audio from an unaligned buffer decodes; a length that is not whole samples is refused", () => {
    const bytes = audioToBytes(new Float32Array([0.25, -0.75]));
    const unaligned = Buffer.concat([Buffer.from([9]), bytes]).subarray(1);
    expect(Array.from(bytesToAudio(unaligned))).toEqual([0.25, -0.75]);
    expect(() => bytesToAudio(bytes.subarray(0, 7))).toThrow(/not a multiple of 4/);
  });

  test("malformed job entries give descriptive errors", () => {
    expect(() => decodeJob({ audio: Buffer.alloc(4) } as never)).toThrow(/no meta field/);
    expect(() => decodeJob({ meta: Buffer.from("{"), audio: Buffer.alloc(4) })).toThrow(/not JSON/);
    expect(() => decodeJob({ meta: Buffer.from('{"v":9}'), audio: Buffer.alloc(4) })).toThrow(/unsupported version 9/);
    const meta = Buffer.from(encodeJob(job, "r", 0).meta);
    expect(() => decodeJob({ meta })).toThrow(/no audio field/);
  });

  test("keys are distinct per (session, utterance, seq) even with separators in ids", () => {
    expect(jobKey({ sessionId: "a:b", utteranceId: "c", seq: 1 })).not.toBe(jobKey({ sessionId: "a", utteranceId: "b:c", seq: 1 }));
    expect(jobKey(job)).toBe(jobKey({ ...job }));
    expect(jobKey(job)).not.toBe(jobKey({ ...job, seq: 3 }));
  });

  test("replies carry a result or an error", () => {
    const result = { text: "a", language: "en", confidence: 0.9, words: [], noSpeech: false };
    expect(decodeReply(encodeReply({ key: "k", worker: "w", result }))).toEqual({ key: "k", worker: "w", result });
    expect(decodeReply(encodeReply({ key: "k", worker: "w", error: "boom" }))).toEqual({ key: "k", worker: "w", error: "boom" });
    expect(() => decodeReply({ worker: "w" })).toThrow(/no key/);
    expect(() => decodeReply({ key: "k" })).toThrow(/neither result nor error/);
  });
});
