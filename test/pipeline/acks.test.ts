/**
 * Acknowledgments cover whole sample frames: a byte range never ends inside a sample or between the
 * channels of one instant, counted from the end of a WAV header when the stream starts with one.
 * An utterance is acknowledged once its speculative final (decoded when speech pauses) has
 * returned: before its final, which waits for the endpointing window.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { sharedAudio, type TestService } from "../helpers/server.ts";
import { chunks, createSession, finalTexts, RawClient, spellingSamples, startPipelineService, toPcm16, type Msg } from "./helpers.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startPipelineService();
});
afterAll(() => svc.stop());

/** Float samples → little-endian PCM of `bytes` per sample, each sample repeated on `channels` channels. */
function pcm(samples: Float32Array, bytes: 2 | 3, channels: number): Uint8Array {
  const out = new Uint8Array(samples.length * bytes * channels);
  const max = bytes === 2 ? 32767 : 8388607;
  let o = 0;
  for (const s of samples) {
    const v = Math.max(-max - 1, Math.min(max, Math.round(s * (max + 1))));
    for (let c = 0; c < channels; c++) for (let b = 0; b < bytes; b++) out[o++] = (v >> (8 * b)) & 0xff;
  }
  return out;
}

/** A 44-byte WAV header for PCM of unknown length (sizes set to the maximum, as streaming clients do). */
function wavHeader(rate: number, bytes: number, channels: number): Uint8Array {
  const h = Buffer.alloc(44);
  h.write("RIFF", 0);
  h.writeUInt32LE(0xffffffff, 4);
  h.write("WAVEfmt ", 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * bytes * channels, 28);
  h.writeUInt16LE(bytes * channels, 32);
  h.writeUInt16LE(bytes * 8, 34);
  h.write("data", 36);
  h.writeUInt32LE(0xffffffff, 40);
  return new Uint8Array(h);
}

async function acksOf(init: Record<string, unknown>, stream: Uint8Array, frame: number): Promise<{ acks: Msg[]; client: RawClient }> {
  const s = await createSession(svc, { model: "trantoria-1", language_config: { languages: ["en"] }, ...init });
  const client = new RawClient(s.url);
  await client.opened;
  for (const c of chunks(stream, frame)) client.send(c);
  client.stop();
  expect((await client.closed).code).toBe(1000);
  return { acks: client.messages.filter((m) => m.type === "audio_chunk"), client };
}

function expectContiguous(acks: Msg[], total: number) {
  expect(acks.length).toBeGreaterThan(1);
  expect(acks[0]!.data.byte_range[0]).toBe(0);
  for (let i = 1; i < acks.length; i++) expect(acks[i]!.data.byte_range[0]).toBe(acks[i - 1]!.data.byte_range[1]);
  expect(acks.at(-1)!.data.byte_range[1]).toBe(total);
}

describe("sample-aligned acknowledgments", () => {
  const samples = spellingSamples(["a", "b"]);

  test("16-bit mono: every range ends on an even byte, also with a stray last byte", async () => {
    const audio = pcm(samples, 2, 1);
    const stream = new Uint8Array(audio.length + 1);
    stream.set(audio);
    const { acks, client } = await acksOf({}, stream, 2048);
    expect(finalTexts(client.messages)).toEqual(["a", "b"]);
    expect(acks.map((a) => a.data.byte_range[1]).filter((end) => end % 2 !== 0)).toEqual([]);
    expectContiguous(acks, audio.length);
  });

  test("24-bit stereo after a WAV header: every range ends at 44 + 6k", async () => {
    const audio = pcm(samples, 3, 2);
    const stream = new Uint8Array(44 + audio.length + 4);
    stream.set(wavHeader(16000, 3, 2));
    stream.set(audio, 44);
    const { acks, client } = await acksOf({ bit_depth: 24, channels: 2 }, stream, 4099);
    // The same speech on both channels: each channel has its finals.
    expect(finalTexts(client.messages).sort()).toEqual(["a", "a", "b", "b"]);
    expect(acks.map((a) => a.data.byte_range[1]).filter((end) => (end - 44) % 6 !== 0)).toEqual([]);
    expectContiguous(acks, 44 + audio.length);
  });
});

describe("acknowledgment ahead of the final", () => {
  test("endpointing 2 s: the ack covering an utterance arrives before its final, which the window still holds back", async () => {
    // "a" and "b", each followed by 3 s of silence (more than the endpointing window).
    const stream = toPcm16(spellingSamples(["a", "b"], 3));
    const frames = chunks(stream, 3200);
    const s = await createSession(svc, { model: "trantoria-1", language_config: { languages: ["en"] }, endpointing: 2 });
    const client = new RawClient(s.url);
    await client.opened;
    const clip = (name: string) => readWavFile(path.join(sharedAudio, `spelling/${name}.wav`)).samples.length / 16000;
    const ackedEnd = (m: Msg) => m.data.time_range[1] / 1000;
    let sent = 0;
    let speechEnd = 0.5;
    for (const [i, name] of ["a", "b"].entries()) {
      // Up to 1.2 s after the end of the word: less silence than the window, so its final cannot exist yet.
      speechEnd += (i > 0 ? 3 : 0) + clip(name);
      const upTo = Math.round(((speechEnd + 1.2) * 32000) / 3200);
      for (const f of frames.slice(sent, upTo)) client.send(f);
      sent = upTo;
      // An ack covering the audio of a partial of the word (the speculative final's, decoded at the pause).
      const partialEnds = () =>
        client.messages.filter((m) => m.type === "transcript" && !m.data.is_final && m.data.utterance.start > speechEnd - clip(name) - 0.5).map((m) => m.data.utterance.end as number);
      await client.waitFor((m) => m.type === "audio_chunk" && partialEnds().some((end) => ackedEnd(m) >= end - 0.002));
      expect(client.finals().length).toBe(i);
    }
    for (const f of frames.slice(sent)) client.send(f);
    client.stop();
    expect((await client.closed).code).toBe(1000);
    expect(finalTexts(client.messages)).toEqual(["a", "b"]);
    // Each final was preceded by an ack covering its whole utterance.
    for (const final of client.finals()) {
      const ack = client.messages.findIndex((m) => m.type === "audio_chunk" && ackedEnd(m) >= final.data.utterance.end - 0.002);
      expect(ack).toBeGreaterThanOrEqual(0);
      expect(ack).toBeLessThan(client.messages.indexOf(final));
    }
    expectContiguous(
      client.messages.filter((m) => m.type === "audio_chunk"),
      stream.length,
    );
  });
});
