import { describe, expect, test } from "bun:test";
import path from "node:path";
import { alaw, mulaw } from "alawmulaw";
import { createAudioDecoder, type AudioDecoder } from "./decoder.ts";
import { bytesPerFrame, bytesToMs, framesToMs, msToBytes, type AudioFormat } from "./format.ts";
import { decodeWavFile } from "./wav-file.ts";

const AUDIO_DIR = path.resolve(import.meta.dir, "../../../shared/audio");
const jfkBytes = new Uint8Array(await Bun.file(path.join(AUDIO_DIR, "jfk.wav")).arrayBuffer());

const pcm16: AudioFormat = { encoding: "wav/pcm", bitDepth: 16, sampleRate: 16000, channels: 1 };

/** Pushes `bytes` in pieces of the given sizes (cycled) and joins the per-channel output. */
function decodeInPieces(decoder: AudioDecoder, bytes: Uint8Array, sizes: number[]): Float32Array[] {
  const parts: Float32Array[][] = [];
  for (let pos = 0, i = 0; pos < bytes.length; i++) {
    const n = sizes[i % sizes.length]!;
    parts.push(decoder.push(bytes.subarray(pos, pos + n)));
    pos += n;
  }
  parts.push(decoder.flush());
  return Array.from({ length: decoder.format.channels }, (_, c) => {
    const total = parts.reduce((s, p) => s + p[c]!.length, 0);
    const out = new Float32Array(total);
    let o = 0;
    for (const p of parts) {
      out.set(p[c]!, o);
      o += p[c]!.length;
    }
    return out;
  });
}

/** Offset of the `data` chunk payload in a WAV file (test-side, independent of the decoder). */
function dataOffset(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  for (let pos = 12; pos < bytes.length; ) {
    const id = String.fromCharCode(...bytes.subarray(pos, pos + 4));
    const size = view.getUint32(pos + 4, true);
    if (id === "data") return pos + 8;
    pos += 8 + size + (size & 1);
  }
  throw new Error("no data chunk");
}

describe("PCM sample conversion", () => {
  test("8-bit unsigned", () => {
    const d = createAudioDecoder({ encoding: "wav/pcm", bitDepth: 8, sampleRate: 8000, channels: 1 });
    const [ch] = d.push(new Uint8Array([0, 64, 128, 192, 255]));
    expect(Array.from(ch!)).toEqual([-1, -0.5, 0, 0.5, 127 / 128]);
  });

  test("16-bit signed little-endian", () => {
    const d = createAudioDecoder(pcm16);
    const bytes = new Uint8Array(new Int16Array([-32768, -16384, 0, 16384, 32767]).buffer);
    const [ch] = d.push(bytes);
    expect(Array.from(ch!)).toEqual([-1, -0.5, 0, 0.5, 32767 / 32768]);
  });

  test("24-bit signed little-endian", () => {
    const d = createAudioDecoder({ encoding: "wav/pcm", bitDepth: 24, sampleRate: 48000, channels: 1 });
    const bytes = new Uint8Array([0x00, 0x00, 0x80, 0x00, 0x00, 0xc0, 0, 0, 0, 0x00, 0x00, 0x40, 0xff, 0xff, 0x7f]);
    const [ch] = d.push(bytes);
    expect(Array.from(ch!)).toEqual([-1, -0.5, 0, 0.5, 8388607 / 8388608]);
  });

  test("32-bit signed little-endian", () => {
    const d = createAudioDecoder({ encoding: "wav/pcm", bitDepth: 32, sampleRate: 48000, channels: 1 });
    const bytes = new Uint8Array(new Int32Array([-2147483648, -1073741824, 0, 1073741824]).buffer);
    const [ch] = d.push(bytes);
    expect(Array.from(ch!)).toEqual([-1, -0.5, 0, 0.5]);
  });
});

describe("G.711", () => {
  test("A-law and µ-law reference code points", () => {
    const a = createAudioDecoder({ encoding: "wav/alaw", bitDepth: 8, sampleRate: 8000, channels: 1 });
    // ITU-T G.711: A-law 0xD5 / 0x55 are the smallest positive / negative steps (±8),
    // 0xAA / 0x2A the largest (±32256).
    const [al] = a.push(new Uint8Array([0xd5, 0x55, 0xaa, 0x2a]));
    expect(Array.from(al!).map((x) => Math.round(x * 32768))).toEqual([8, -8, 32256, -32256]);
    const u = createAudioDecoder({ encoding: "wav/ulaw", bitDepth: 8, sampleRate: 8000, channels: 1 });
    // µ-law 0xFF is zero, 0x80 / 0x00 the extremes (±32124).
    const [ul] = u.push(new Uint8Array([0xff, 0x80, 0x00]));
    expect(Array.from(ul!).map((x) => Math.round(x * 32768))).toEqual([0, 32124, -32124]);
  });

  test("a companded sine decodes within the codec's quantisation error", () => {
    const n = 800;
    const pcm = new Int16Array(n);
    for (let i = 0; i < n; i++) pcm[i] = Math.round(20000 * Math.sin((2 * Math.PI * 440 * i) / 8000));
    for (const [encoding, codec] of [["wav/alaw", alaw], ["wav/ulaw", mulaw]] as const) {
      const d = createAudioDecoder({ encoding, bitDepth: 8, sampleRate: 8000, channels: 1 });
      const [out] = decodeInPieces(d, codec.encode(pcm), [7, 1, 33]);
      expect(out!.length).toBe(n);
      let maxErr = 0;
      for (let i = 0; i < n; i++) maxErr = Math.max(maxErr, Math.abs(out![i]! - pcm[i]! / 32768));
      // The largest G.711 step is 1024 of 32768 for both laws: half of it bounds the error.
      expect(maxErr).toBeLessThan(0.02);
      expect(maxErr).toBeGreaterThan(0);
    }
  });
});

describe("framing", () => {
  test("interleaved channels split across pushes at every byte position", () => {
    const format: AudioFormat = { encoding: "wav/pcm", bitDepth: 24, sampleRate: 16000, channels: 3 };
    const frames = 50;
    const bytes = new Uint8Array(frames * bytesPerFrame(format));
    const view = new DataView(bytes.buffer);
    for (let f = 0; f < frames; f++) {
      for (let c = 0; c < 3; c++) {
        const v = (c + 1) * 1000 * (f % 2 ? 1 : -1) + f; // distinct per channel and frame
        const o = (f * 3 + c) * 3;
        view.setUint8(o, v & 0xff);
        view.setUint8(o + 1, (v >> 8) & 0xff);
        view.setUint8(o + 2, (v >> 16) & 0xff);
      }
    }
    for (const sizes of [[1], [2], [4], [5, 3], [9], [1000]]) {
      const d = createAudioDecoder(format);
      const out = decodeInPieces(d, bytes, sizes);
      expect(d.framesDecoded).toBe(frames);
      for (let c = 0; c < 3; c++) {
        expect(out[c]!.length).toBe(frames);
        for (let f = 0; f < frames; f++) {
          const v = (c + 1) * 1000 * (f % 2 ? 1 : -1) + f;
          expect(Math.round(out[c]![f]! * 8388608)).toBe(v);
        }
      }
    }
  });

  test("reused output buffers: the same samples as fresh arrays, for every encoding and split; no new buffer per push", () => {
    const formats: AudioFormat[] = [
      pcm16,
      { encoding: "wav/pcm", bitDepth: 16, sampleRate: 8000, channels: 2 },
      { encoding: "wav/pcm", bitDepth: 8, sampleRate: 16000, channels: 1 },
      { encoding: "wav/pcm", bitDepth: 24, sampleRate: 16000, channels: 3 },
      { encoding: "wav/pcm", bitDepth: 32, sampleRate: 16000, channels: 2 },
      { encoding: "wav/alaw", bitDepth: 8, sampleRate: 8000, channels: 1 },
      { encoding: "wav/ulaw", bitDepth: 8, sampleRate: 8000, channels: 2 },
    ];
    const bytes = new Uint8Array(24_000).map((_, i) => (i * 7919 + (i >> 3)) & 0xff);
    for (const format of formats) {
      for (const sizes of [[3200], [3199, 3201], [7], [1000, 1, 77]]) {
        const fresh = decodeInPieces(createAudioDecoder(format), bytes, sizes);
        const reused = createAudioDecoder(format, { reuseOutput: true });
        const copies: Float32Array[][] = [];
        const buffers = new Set<ArrayBufferLike>();
        for (let pos = 0, i = 0; pos < bytes.length; i++) {
          const n = sizes[i % sizes.length]!;
          const out = reused.push(bytes.subarray(pos, pos + n));
          buffers.add(out[0]!.buffer);
          copies.push(out.map((o) => o.slice())); // valid until the next push: copied now
          pos += n;
        }
        copies.push(reused.flush().map((o) => o.slice()));
        for (let c = 0; c < format.channels; c++) {
          const joined = new Float32Array(copies.reduce((s, p) => s + p[c]!.length, 0));
          let o = 0;
          for (const p of copies) {
            joined.set(p[c]!, o);
            o += p[c]!.length;
          }
          expect(joined).toEqual(new Float32Array(fresh[c]!));
        }
        expect(buffers.size).toBeLessThanOrEqual(2); // the first buffer, and one grown for a larger piece
      }
    }
  });

  test("a trailing partial frame is held back and dropped at flush", () => {
    const d = createAudioDecoder({ ...pcm16, channels: 2 });
    expect(d.push(new Uint8Array(7))[0]!.length).toBe(1);
    expect(d.push(new Uint8Array(2))[1]!.length).toBe(1); // 3 + 2 = 5 → one more frame
    expect(d.flush()[0]!.length).toBe(0);
    expect(d.framesDecoded).toBe(2);
    expect(d.bytesReceived).toBe(9);
  });

  test("bad formats are rejected with clear errors", () => {
    expect(() => createAudioDecoder({ ...pcm16, bitDepth: 12 as 16 })).toThrow(/bit depth/);
    expect(() => createAudioDecoder({ ...pcm16, encoding: "wav/alaw" })).toThrow(/8-bit/);
    expect(() => createAudioDecoder({ ...pcm16, channels: 0 })).toThrow(/channel/);
    expect(() => createAudioDecoder({ ...pcm16, encoding: "mp3" as "wav/pcm" })).toThrow(/encoding/);
  });
});

describe("RIFF/WAVE header", () => {
  const payload = jfkBytes.subarray(dataOffset(jfkBytes));
  const expected = createAudioDecoder(pcm16).push(payload)[0]!;

  test("jfk.wav (fmt + LIST + data) decodes to the headerless samples", () => {
    expect(expected.length).toBe(payload.length / 2);
    const d = createAudioDecoder(pcm16);
    const [out] = decodeInPieces(d, jfkBytes, [4096]);
    expect(out).toEqual(expected);
    expect(d.takeWarnings()).toEqual([]);
    expect(d.wavHeader).toEqual({ formatTag: 1, channels: 1, sampleRate: 16000, bitsPerSample: 16 });
    expect(d.bytesReceived).toBe(jfkBytes.length);
  });

  test("header split at every position in the first 100 bytes", () => {
    for (let cut = 1; cut <= 100; cut++) {
      const d = createAudioDecoder(pcm16);
      const a = d.push(jfkBytes.subarray(0, cut))[0]!;
      const b = d.push(jfkBytes.subarray(cut, 2000))[0]!;
      const joined = new Float32Array(a.length + b.length) as Float32Array;
      joined.set(a);
      joined.set(b, a.length);
      expect(joined).toEqual(expected.subarray(0, joined.length));
      expect(joined.length).toBe(Math.floor((2000 - dataOffset(jfkBytes)) / 2));
      expect(d.payloadOffset).toBe(dataOffset(jfkBytes));
    }
  });

  test("byte offsets of audio times count the header", () => {
    const d = createAudioDecoder(pcm16);
    d.push(jfkBytes.subarray(0, 10));
    expect(d.payloadOffset).toBeNull(); // undecided
    d.push(jfkBytes.subarray(10, 5000));
    expect(d.byteOffsetAt(0)).toBe(dataOffset(jfkBytes));
    expect(d.byteOffsetAt(1.5)).toBe(dataOffset(jfkBytes) + 48000);
    const raw = createAudioDecoder({ ...pcm16, channels: 2, sampleRate: 8000 });
    raw.push(new Uint8Array(3));
    expect(raw.payloadOffset).toBe(0);
    expect(raw.byteOffsetAt(0.25)).toBe(2000 * 4);
  });

  test("byte-by-byte header", () => {
    const d = createAudioDecoder(pcm16);
    const [out] = decodeInPieces(d, jfkBytes.subarray(0, 600), [1]);
    expect(out).toEqual(expected.subarray(0, out!.length));
    expect(out!.length).toBe((600 - dataOffset(jfkBytes)) / 2);
  });

  test("a header that disagrees with the session format yields a warning, not a crash", () => {
    const d = createAudioDecoder({ ...pcm16, sampleRate: 8000 });
    const [out] = decodeInPieces(d, jfkBytes, [1000]);
    expect(out!.length).toBe(expected.length);
    const warnings = d.takeWarnings();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.code).toBe("wav_format_mismatch");
    expect(warnings[0]!.message).toContain("16000 Hz");
    expect(d.takeWarnings()).toEqual([]);
  });

  test("bytes after the data chunk are ignored with a warning", () => {
    const withTrailer = new Uint8Array(jfkBytes.length + 12);
    withTrailer.set(jfkBytes);
    withTrailer.set(new TextEncoder().encode("JUNK\x04\x00\x00\x00abcd"), jfkBytes.length);
    const d = createAudioDecoder(pcm16);
    const [out] = decodeInPieces(d, withTrailer, [777]);
    expect(out!.length).toBe(expected.length);
    expect(d.takeWarnings().map((w) => w.code)).toEqual(["wav_trailing_bytes"]);
  });

  test("a stream that only looks like RIFF at first is decoded as raw audio", () => {
    const bytes = new TextEncoder().encode("RIFFxxxxNOPE");
    const d = createAudioDecoder(pcm16);
    const a = d.push(bytes.subarray(0, 5));
    expect(a[0]!.length).toBe(0); // still undecided
    const b = d.push(bytes.subarray(5));
    expect(b[0]!.length).toBe(6);
    expect(b[0]![0]).toBeCloseTo((0x52 | (0x49 << 8)) / 32768, 6);
  });

  test("decodeWavFile reads a file with its own declared format", () => {
    const wav = decodeWavFile(jfkBytes);
    expect(wav.format).toEqual(pcm16);
    expect(wav.channels[0]!.length / 16000).toBeCloseTo(11, 0);
  });
});

describe("byte and time helpers", () => {
  const stereo48: AudioFormat = { encoding: "wav/pcm", bitDepth: 24, sampleRate: 48000, channels: 2 };
  test("conversions", () => {
    expect(bytesPerFrame(stereo48)).toBe(6);
    expect(bytesPerFrame(pcm16)).toBe(2);
    expect(framesToMs(16000, 16000)).toBe(1000);
    expect(bytesToMs(6 * 48000, stereo48)).toBe(1000);
    expect(bytesToMs(6 * 48 + 5, stereo48)).toBe(1); // partial frame does not count
    expect(msToBytes(1000, stereo48)).toBe(6 * 48000);
    expect(msToBytes(20, pcm16)).toBe(640);
    expect(bytesToMs(msToBytes(1234, pcm16), pcm16)).toBe(1234);
  });
});
