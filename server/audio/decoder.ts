/**
 * Streaming decoder for session audio: bytes in the session's encoding → one Float32Array per
 * channel, samples in [-1, 1] at the input rate.
 *
 * Chunks may split frames anywhere: the partial-frame remainder is kept for the next push. A
 * RIFF/WAVE header at the very start of the stream is skipped (see wav-header.ts).
 */

import { bytesPerFrame, validateAudioFormat, type AudioFormat } from "./format.ts";
import { WavHeaderSkipper, type DecoderWarning, type WavFormatInfo } from "./wav-header.ts";

export type { DecoderWarning, WavFormatInfo } from "./wav-header.ts";

export interface AudioDecoder {
  readonly format: AudioFormat;
  /** Bytes per interleaved frame of the session format. */
  readonly bytesPerFrame: number;
  /** Decodes the whole frames available after this chunk; returns one array per channel. */
  push(bytes: Uint8Array): Float32Array[];
  /** End of stream: decodes what is held back; a trailing partial frame is dropped. */
  flush(): Float32Array[];
  /** Warnings raised since the last call (e.g. a WAV header that disagrees with the session). */
  takeWarnings(): DecoderWarning[];
  /** Every byte handed to `push`, header included. */
  readonly bytesReceived: number;
  /** Frames decoded so far (per channel sample count). */
  readonly framesDecoded: number;
  /** The stream's WAV header format, when it started with one. */
  readonly wavHeader: WavFormatInfo | null;
  /** Stream offset of the first audio byte (the WAV header's length; 0 without one); null while undecided. */
  readonly payloadOffset: number | null;
  /**
   * Stream byte offset where the audio at `seconds` (from the first sample) begins, rounded down
   * to a whole frame: the header length plus the whole frames before that time.
   */
  byteOffsetAt(seconds: number): number;
}

type SampleReader = (bytes: Uint8Array, view: DataView, offset: number) => number;

let alawTable: Float32Array | null = null;
let mulawTable: Float32Array | null = null;

/**
 * G.711 byte → float lookup table built from the codec library's sample decoder (loaded with the
 * first G.711 session, not with the service).
 */
function g711Table(law: "alaw" | "mulaw"): Float32Array {
  const codec = (require("alawmulaw") as typeof import("alawmulaw"))[law];
  const table = new Float32Array(256);
  for (let b = 0; b < 256; b++) table[b] = codec.decodeSample(b) / 32768;
  return table;
}

function sampleReader(format: AudioFormat): SampleReader {
  if (format.encoding === "wav/alaw") {
    const table = (alawTable ??= g711Table("alaw"));
    return (b, _v, o) => table[b[o]!]!;
  }
  if (format.encoding === "wav/ulaw") {
    const table = (mulawTable ??= g711Table("mulaw"));
    return (b, _v, o) => table[b[o]!]!;
  }
  switch (format.bitDepth) {
    case 8:
      return (b, _v, o) => (b[o]! - 128) / 128;
    case 16:
      return (_b, v, o) => v.getInt16(o, true) / 32768;
    case 24:
      return (b, _v, o) => (((b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16)) << 8) >> 8) / 8388608;
    case 32:
      return (_b, v, o) => v.getInt32(o, true) / 2147483648;
  }
}

/** Creates a stateful decoder for one session stream. Throws on an unsupported format. */
export function createAudioDecoder(format: AudioFormat): AudioDecoder {
  validateAudioFormat(format);
  const frameBytes = bytesPerFrame(format);
  const sampleBytes = format.bitDepth / 8;
  const channels = format.channels;
  const read = sampleReader(format);
  const header = new WavHeaderSkipper(format);
  let remainder = new Uint8Array(0);
  let bytesReceived = 0;
  let framesDecoded = 0;

  function decode(payload: Uint8Array): Float32Array[] {
    let buf = payload;
    if (remainder.length > 0) {
      buf = new Uint8Array(remainder.length + payload.length);
      buf.set(remainder, 0);
      buf.set(payload, remainder.length);
    }
    const frames = Math.floor(buf.length / frameBytes);
    const used = frames * frameBytes;
    remainder = buf.slice(used);
    const out = Array.from({ length: channels }, () => new Float32Array(frames));
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    for (let f = 0, o = 0; f < frames; f++) {
      for (let c = 0; c < channels; c++, o += sampleBytes) out[c]![f] = read(buf, view, o);
    }
    framesDecoded += frames;
    return out;
  }

  return {
    format,
    bytesPerFrame: frameBytes,
    push(bytes) {
      bytesReceived += bytes.length;
      return decode(header.feed(bytes));
    },
    flush() {
      const out = decode(header.flush());
      remainder = new Uint8Array(0);
      return out;
    },
    takeWarnings: () => header.takeWarnings(),
    get bytesReceived() {
      return bytesReceived;
    },
    get framesDecoded() {
      return framesDecoded;
    },
    get wavHeader() {
      return header.header;
    },
    get payloadOffset() {
      return header.payloadOffset;
    },
    byteOffsetAt(seconds) {
      const frames = Math.max(0, Math.floor(seconds * format.sampleRate + 1e-6));
      return (header.payloadOffset ?? 0) + frames * frameBytes;
    },
  };
}
