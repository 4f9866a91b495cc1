/**
 * Minimal RIFF/WAVE reader for PCM 8/16/24/32-bit integer and 32/64-bit float files, mixing
 * all channels down to mono float32 in [-1, 1], and a 16-bit mono writer. Used by tests and benchmarks.
 */
import { readFileSync } from "node:fs";

export interface DecodedWav {
  sampleRate: number;
  channels: number;
  samples: Float32Array;
}

/** Decodes WAV bytes; throws a descriptive error on anything it cannot read. */
function decodeWav(bytes: Uint8Array): DecodedWav {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (o: number) => String.fromCharCode(bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]);
  if (bytes.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") throw new Error("not a RIFF/WAVE file");
  let format = 0, channels = 0, sampleRate = 0, bits = 0;
  let dataOff = -1, dataLen = 0;
  for (let o = 12; o + 8 <= bytes.length; ) {
    const id = tag(o);
    const size = view.getUint32(o + 4, true);
    const body = o + 8;
    if (id === "fmt ") {
      format = view.getUint16(body, true);
      channels = view.getUint16(body + 2, true);
      sampleRate = view.getUint32(body + 4, true);
      bits = view.getUint16(body + 14, true);
      if (format === 0xfffe && size >= 26) format = view.getUint16(body + 24, true);
    } else if (id === "data") {
      dataOff = body;
      dataLen = Math.min(size, bytes.length - body);
      break;
    }
    o = body + size + (size & 1);
  }
  if (!channels || dataOff < 0) throw new Error("WAV file lacks a fmt or data chunk");
  const bytesPer = bits / 8;
  const frames = Math.floor(dataLen / (bytesPer * channels));
  const read = sampleReader(view, format, bits);
  const samples = new Float32Array(frames);
  for (let f = 0; f < frames; f++) {
    let acc = 0;
    for (let c = 0; c < channels; c++) acc += read(dataOff + (f * channels + c) * bytesPer);
    samples[f] = acc / channels;
  }
  return { sampleRate, channels, samples };
}

function sampleReader(view: DataView, format: number, bits: number): (o: number) => number {
  if (format === 1 && bits === 16) return (o) => view.getInt16(o, true) / 32768;
  if (format === 1 && bits === 8) return (o) => (view.getUint8(o) - 128) / 128;
  if (format === 1 && bits === 24) {
    return (o) => ((view.getUint8(o) | (view.getUint8(o + 1) << 8) | (view.getInt8(o + 2) << 16)) / 8388608);
  }
  if (format === 1 && bits === 32) return (o) => view.getInt32(o, true) / 2147483648;
  if (format === 3 && bits === 32) return (o) => view.getFloat32(o, true);
  if (format === 3 && bits === 64) return (o) => view.getFloat64(o, true);
  throw new Error(`unsupported WAV sample format ${format} with ${bits} bits`);
}

/** Reads and decodes a WAV file. */
export function readWavFile(path: string): DecodedWav {
  return decodeWav(readFileSync(path));
}

/** 16-bit mono PCM WAV bytes of float samples in [-1, 1] (clipped). */
export function encodeWav(samples: Float32Array, sampleRate: number): Uint8Array {
  const out = new DataView(new ArrayBuffer(44 + samples.length * 2));
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => out.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, "RIFF");
  out.setUint32(4, 36 + samples.length * 2, true);
  ascii(8, "WAVEfmt ");
  out.setUint32(16, 16, true);
  out.setUint16(20, 1, true);
  out.setUint16(22, 1, true);
  out.setUint32(24, sampleRate, true);
  out.setUint32(28, sampleRate * 2, true);
  out.setUint16(32, 2, true);
  out.setUint16(34, 16, true);
  ascii(36, "data");
  out.setUint32(40, samples.length * 2, true);
  for (let i = 0; i < samples.length; i++) out.setInt16(44 + i * 2, Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768))), true);
  return new Uint8Array(out.buffer);
}
