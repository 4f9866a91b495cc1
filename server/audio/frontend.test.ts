import { afterAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { alaw } from "alawmulaw";
import { SileroVad } from "../../workers/engines/vad/silero.ts";
import type { UtteranceFinalEvent } from "../vad/endpointer-types.ts";
import { createAudioFrontend, type FrontendEvent } from "./frontend.ts";
import { createResampler } from "./resampler.ts";
import { readWavFile } from "../../workers/dsp/wav.ts";

const SHARED = path.resolve(import.meta.dir, "../../../shared");
const MODEL = path.join(process.env.MODELS_DIR ?? path.join(SHARED, "models"), "silero-vad/silero_vad.onnx");
const vad = await SileroVad.load(MODEL);
afterAll(() => vad.close());

const load = async (name: string) => readWavFile(path.join(SHARED, "audio", name)).samples;

const toInt16 = (x: Float32Array) => Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32768))));

/** A canonical 44-byte WAV header. */
function wavHeader(rate: number, channels: number, bits: number, dataBytes: number, formatTag = 1): Uint8Array {
  const b = new Uint8Array(44);
  const v = new DataView(b.buffer);
  b.set(new TextEncoder().encode("RIFF"), 0);
  v.setUint32(4, 36 + dataBytes, true);
  b.set(new TextEncoder().encode("WAVEfmt "), 8);
  v.setUint32(16, 16, true);
  v.setUint16(20, formatTag, true);
  v.setUint16(22, channels, true);
  v.setUint32(24, rate, true);
  v.setUint32(28, (rate * channels * bits) / 8, true);
  v.setUint16(32, (channels * bits) / 8, true);
  v.setUint16(34, bits, true);
  b.set(new TextEncoder().encode("data"), 36);
  v.setUint32(40, dataBytes, true);
  return b;
}

async function stream(frontend: Awaited<ReturnType<typeof createAudioFrontend>>, bytes: Uint8Array, piece: number) {
  const pending: Promise<FrontendEvent[]>[] = [];
  for (let i = 0; i < bytes.length; i += piece) pending.push(frontend.push(bytes.subarray(i, i + piece)));
  pending.push(frontend.flush());
  return (await Promise.all(pending)).flat();
}

const finals = (events: FrontendEvent[]) =>
  events.filter((e): e is UtteranceFinalEvent & { channel: number } => e.type === "utterance_final");

describe("audio front end", () => {
  const twoChannels = async () => {
    const a = await load("spelling/a.wav"); // speech ≈ 0.16–0.70 s of the clip
    const c = await load("spelling/c.wav");
    const left = new Float32Array(4.5 * 16000);
    const right = new Float32Array(4.5 * 16000);
    left.set(a, 0.5 * 16000); // left: clip at 0.5 s
    right.set(c, 2.5 * 16000); // right: 2.5 s of silence, then another clip
    return { left, right, seconds: 4.5 };
  };

  test("two channels with different content: utterances land on the right channel at the right time", async () => {
    const { left, right, seconds } = await twoChannels();
    const frames = left.length;
    const pcm = new Int16Array(frames * 2);
    const l16 = toInt16(left);
    const r16 = toInt16(right);
    for (let i = 0; i < frames; i++) {
      pcm[2 * i] = l16[i]!;
      pcm[2 * i + 1] = r16[i]!;
    }
    const payload = new Uint8Array(pcm.buffer);
    const bytes = new Uint8Array(44 + payload.length);
    bytes.set(wavHeader(16000, 2, 16, payload.length));
    bytes.set(payload, 44);

    const fe = await createAudioFrontend({
      format: { encoding: "wav/pcm", bitDepth: 16, sampleRate: 16000, channels: 2 },
      vad,
    });
    const events = await stream(fe, bytes, 3001); // odd size: splits frames and the header
    fe.close();
    expect(fe.bytesReceived).toBe(bytes.length);
    expect(fe.durationSeconds).toBe(seconds);
    expect(fe.byteOffsetAt(seconds)).toBe(bytes.length);
    expect(fe.byteOffsetAt(1)).toBe(44 + 16000 * 4);
    expect(events.some((e) => e.type === "warning")).toBe(false);

    const utterances = finals(events);
    expect(utterances.map((u) => u.channel)).toEqual([0, 1]); // merged in time order
    const [l, r] = utterances;
    expect(l!.start).toBeGreaterThan(0.3);
    expect(l!.start).toBeLessThan(0.75);
    expect(l!.end).toBeGreaterThan(1.1);
    expect(l!.end).toBeLessThan(1.6);
    expect(r!.start).toBeGreaterThan(2.3);
    expect(r!.start).toBeLessThan(2.75);
    expect(r!.end).toBeGreaterThan(3.0);
    expect(r!.end).toBeLessThan(3.6);
    expect(l!.utteranceIndex).toBe(0);
    expect(r!.utteranceIndex).toBe(0); // indices count per channel

    // Speech events carry their channel, and each channel's audio is its own.
    const speech = events.filter((e) => e.type === "speech_start" || e.type === "speech_end");
    expect(speech.map((e) => [e.type, (e as { channel: number }).channel])).toEqual([
      ["speech_start", 0],
      ["speech_end", 0],
      ["speech_start", 1],
      ["speech_end", 1],
    ]);
    const from = Math.round(r!.start * 16000);
    let maxDiff = 0;
    for (let i = 0; i < r!.audio.length; i++) maxDiff = Math.max(maxDiff, Math.abs(r!.audio[i]! - right[from + i]!));
    expect(maxDiff).toBeLessThan(1 / 32768 + 1e-7);
  });

  test("48 kHz 24-bit stereo is downsampled without shifting the utterances in time", async () => {
    const { left, right } = await twoChannels();
    const up = async (x: Float32Array) => {
      const r = await createResampler(16000, 48000);
      const parts = [r.push(x), r.flush()];
      r.close();
      const out = new Float32Array(parts[0]!.length + parts[1]!.length);
      out.set(parts[0]!);
      out.set(parts[1]!, parts[0]!.length);
      return out;
    };
    const [l48, r48] = [await up(left), await up(right)];
    expect(l48.length).toBe(4.5 * 48000);
    const bytes = new Uint8Array(l48.length * 6);
    const v = new DataView(bytes.buffer);
    const put24 = (o: number, x: number) => {
      const n = Math.max(-8388608, Math.min(8388607, Math.round(x * 8388608)));
      v.setUint8(o, n & 0xff);
      v.setUint8(o + 1, (n >> 8) & 0xff);
      v.setInt8(o + 2, n >> 16);
    };
    for (let i = 0; i < l48.length; i++) {
      put24(i * 6, l48[i]!);
      put24(i * 6 + 3, r48[i]!);
    }
    const fe48 = await createAudioFrontend({
      format: { encoding: "wav/pcm", bitDepth: 24, sampleRate: 48000, channels: 2 },
      vad,
    });
    const fe16 = await createAudioFrontend({
      format: { encoding: "wav/pcm", bitDepth: 16, sampleRate: 16000, channels: 1 },
      vad,
    });
    const at48 = finals(await stream(fe48, bytes, 5760)); // 20 ms chunks
    const rightOnly = finals(await stream(fe16, new Uint8Array(toInt16(right).buffer), 640));
    fe48.close();
    fe16.close();
    expect(fe48.durationSeconds).toBe(4.5);
    expect(at48.map((u) => u.channel)).toEqual([0, 1]);
    // Same segmentation of the right channel as the native 16 kHz stream, within one VAD chunk.
    expect(rightOnly).toHaveLength(1);
    expect(Math.abs(at48[1]!.start - rightOnly[0]!.start)).toBeLessThanOrEqual(0.032 + 1e-9);
    expect(Math.abs(at48[1]!.end - rightOnly[0]!.end)).toBeLessThanOrEqual(0.032 + 1e-9);
  });

  test("8 kHz A-law mono is decoded, upsampled and segmented", async () => {
    const osr = (await load("OSR_us_000_0034_8k.wav")).subarray(0, 8000 * 12);
    const bytes = alaw.encode(toInt16(osr));
    const fe = await createAudioFrontend({
      format: { encoding: "wav/alaw", bitDepth: 8, sampleRate: 8000, channels: 1 },
      vad,
      endpointer: { partialIntervalMs: 0 },
    });
    const events = await stream(fe, bytes, 1600); // 200 ms chunks
    fe.close();
    expect(fe.durationSeconds).toBe(12);
    expect(fe.bytesReceived).toBe(bytes.length);
    const utterances = finals(events);
    expect(utterances.length).toBeGreaterThanOrEqual(2);
    expect(utterances.length).toBeLessThanOrEqual(6);
    for (const u of utterances) {
      expect(u.channel).toBe(0);
      expect(u.end).toBeLessThanOrEqual(12 + 1e-9);
      expect(u.audio.length).toBe(Math.round((u.end - u.start) * 16000)); // 16 kHz out
    }
    const speech = utterances.reduce((s, u) => s + u.end - u.start, 0);
    expect(speech).toBeGreaterThan(5);
    expect(speech).toBeLessThan(11.5);
  });

  test("a WAV header that disagrees with the session is reported as a warning", async () => {
    const fe = await createAudioFrontend({
      format: { encoding: "wav/pcm", bitDepth: 16, sampleRate: 16000, channels: 1 },
      vad,
    });
    const header = wavHeader(44100, 2, 16, 0);
    const first = await fe.push(header.subarray(0, 20));
    const second = await fe.push(header.subarray(20));
    const rest = await fe.push(new Uint8Array(32000));
    await fe.flush();
    fe.close();
    expect(first).toEqual([]);
    expect(second).toHaveLength(1);
    expect(second[0]).toMatchObject({ type: "warning", code: "wav_format_mismatch" });
    expect((second[0] as { message: string }).message).toContain("44100 Hz");
    expect(rest).toEqual([]);
    expect(fe.durationSeconds).toBe(1);
    expect(fe.bytesReceived).toBe(44 + 32000);
  });

  test("an unsupported format is refused up front", async () => {
    await expect(
      createAudioFrontend({ format: { encoding: "wav/ulaw", bitDepth: 16, sampleRate: 8000, channels: 1 }, vad }),
    ).rejects.toThrow(/8-bit/);
  });
});
