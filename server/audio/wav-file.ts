/**
 * Whole-file WAV decoding on top of the streaming decoder, in the file's own declared format (each
 * channel kept). To read a file's samples as mono, use `workers/dsp/wav.ts`.
 */

import { createAudioDecoder } from "./decoder.ts";
import type { AudioEncoding, AudioFormat, BitDepth } from "./format.ts";
import { parseFmtChunk, type WavFormatInfo } from "./wav-header.ts";

export interface DecodedWavFile {
  format: AudioFormat;
  /** One array per channel, samples in [-1, 1]. */
  channels: Float32Array[];
}

const ENCODINGS: Record<number, AudioEncoding> = { 1: "wav/pcm", 6: "wav/alaw", 7: "wav/ulaw" };

/** Finds and parses the `fmt ` chunk of a complete WAV file; throws when there is none. */
function readWavFormat(bytes: Uint8Array): WavFormatInfo {
  const text = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || text(0) !== "RIFF" || text(8) !== "WAVE") {
    throw new Error("not a RIFF/WAVE file");
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let pos = 12; pos + 8 <= bytes.length; ) {
    const size = view.getUint32(pos + 4, true);
    if (text(pos) === "fmt ") {
      const info = parseFmtChunk(bytes.subarray(pos + 8, pos + 8 + size));
      if (info) return info;
      break;
    }
    pos += 8 + size + (size & 1);
  }
  throw new Error("WAV file has no usable fmt chunk");
}

/** Decodes a complete WAV file (integer PCM, A-law or µ-law) into per-channel float samples. */
export function decodeWavFile(bytes: Uint8Array): DecodedWavFile {
  const info = readWavFormat(bytes);
  const encoding = ENCODINGS[info.formatTag];
  if (!encoding) throw new Error(`unsupported WAV format tag ${info.formatTag}`);
  const format: AudioFormat = {
    encoding,
    bitDepth: info.bitsPerSample as BitDepth,
    sampleRate: info.sampleRate,
    channels: info.channels,
  };
  const decoder = createAudioDecoder(format);
  const parts = [decoder.push(bytes), decoder.flush()];
  const channels = Array.from({ length: format.channels }, (_, c) => {
    const a = parts[0]![c]!;
    const b = parts[1]![c]!;
    if (b.length === 0) return a;
    const out = new Float32Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  });
  return { format, channels };
}
