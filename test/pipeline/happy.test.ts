import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestService } from "../helpers/server.ts";
import { chunks, contractErrors, startPipelineService, createSession, finalTexts, RawClient, speechSamples, spellingSamples, toPcm16, words } from "./helpers.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startPipelineService();
});
afterAll(() => svc.stop());

const TOKENS = ["a", "zero"] as const;
const init = { model: "trantoria-1", language_config: { languages: ["en"] }, messages_config: { receive_lifecycle_events: true } };

async function stream(frames: (Uint8Array | string)[]) {
  const { id, url } = await createSession(svc, init);
  const client = new RawClient(url);
  await client.opened;
  for (const f of frames) client.send(f);
  client.stop();
  const close = await client.closed;
  return { id, client, close };
}

describe("real-time pipeline, happy path", () => {
  const pcm = toPcm16(spellingSamples([...TOKENS]));
  // A real English recording (11 s).
  const speech = toPcm16(speechSamples(["jfk.wav"]));

  test("binary frames: real speech as finals in order, every message valid, closed with 1000", async () => {
    const { id, client, close } = await stream(chunks(speech, 3200));
    expect(close.code).toBe(1000);
    const heard = finalTexts(client.messages).join(" ");
    expect(heard).toContain("my fellow americans");
    expect(heard).toContain("ask not what your country can do for you");
    expect(heard.indexOf("fellow americans")).toBeLessThan(heard.lastIndexOf("for your country"));
    for (const m of client.messages) expect(contractErrors(m)).toEqual([]);
    const types = client.types();
    expect(types[0]).toBe("start_recording");
    const tail = types.filter((t) => ["stop_recording", "end_recording", "post_transcript", "post_final_transcript", "end_session"].includes(t));
    expect(tail).toEqual(["stop_recording", "end_recording", "post_transcript", "post_final_transcript", "end_session"]);
    expect(types.at(-1)).toBe("end_session");
    // finals come before end_recording; acks cover the whole stream in contiguous ranges
    expect(types.lastIndexOf("transcript")).toBeLessThan(types.indexOf("end_recording"));
    const acks = client.messages.filter((m) => m.type === "audio_chunk");
    expect(acks.length).toBeGreaterThan(0);
    expect(acks[0]!.data.byte_range[0]).toBe(0);
    for (let i = 1; i < acks.length; i++) expect(acks[i]!.data.byte_range[0]).toBe(acks[i - 1]!.data.byte_range[1]);
    expect(acks.at(-1)!.data.byte_range[1]).toBe(speech.length);
    expect(acks.at(-1)!.data.time_range[1]).toBe(Math.round((speech.length / 32000) * 1000));
    const stop = client.messages.find((m) => m.type === "stop_recording")!;
    expect(stop.data.recording_duration).toBeCloseTo(speech.length / 32000, 2);
    const end = client.messages.find((m) => m.type === "end_recording")!;
    expect(end.data.recording_duration).toBeCloseTo(speech.length / 32000, 2);
    const post = client.messages.find((m) => m.type === "post_final_transcript")!;
    expect(post.data.transcription.utterances.map((u: { text: string }) => u.text)).toEqual(client.finals().map((m) => m.data.utterance.text));
    expect(post.data.metadata.audio_duration).toBeCloseTo(speech.length / 32000, 2);
    // Utterance times are seconds from the session start, in order.
    const finals = client.finals().map((m) => m.data.utterance);
    for (let i = 1; i < finals.length; i++) expect(finals[i].start).toBeGreaterThan(finals[i - 1].end);
    expect(finals[0].start).toBeGreaterThan(0.2);
    // The stored session carries the result.
    const stored = (await svc.running.deps.store.getSessionById(id))!;
    expect(stored.status).toBe("done");
    expect(stored.connectedAt).not.toBeNull();
    const full = (stored.result as { transcription: { full_transcript: string } }).transcription.full_transcript;
    expect(words(full)).toBe(heard);
  });

  test("base64 audio_chunk messages give the same transcripts as binary frames", async () => {
    const frames = chunks(pcm, 3200).map((c) => JSON.stringify({ type: "audio_chunk", data: { chunk: Buffer.from(c).toString("base64") } }));
    const { client, close } = await stream(frames);
    expect(close.code).toBe(1000);
    expect(finalTexts(client.messages)).toEqual([...TOKENS]);
    const utt = client.finals().map((m) => [m.data.utterance.start, m.data.utterance.end]);
    const bin = await stream(chunks(pcm, 4000));
    expect(bin.client.finals().map((m) => [m.data.utterance.start, m.data.utterance.end])).toEqual(utt);
  });
});
