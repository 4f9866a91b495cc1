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

/**
 * Decodes `frames` interleaved frames of `bytes` from byte `start` into `out` (one array per
 * channel, from index 0): one loop per encoding, no call per sample.
 */
function decodeFrames(format: AudioFormat, bytes: Uint8Array, start: number, frames: number, out: Float32Array[]): void {
  const channels = format.channels;
  const n = frames * channels;
  if (format.encoding === "wav/alaw" || format.encoding === "wav/ulaw") {
    const table = format.encoding === "wav/alaw" ? (alawTable ??= g711Table("alaw")) : (mulawTable ??= g711Table("mulaw"));
    for (let i = 0; i < n; i++) out[i % channels]![(i / channels) | 0] = table[bytes[start + i]!]!;
    return;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (format.bitDepth) {
    case 8:
      for (let i = 0; i < n; i++) out[i % channels]![(i / channels) | 0] = (bytes[start + i]! - 128) / 128;
      return;
    case 16:
      if (channels === 1) {
        const mono = out[0]!;
        for (let f = 0, o = start; f < frames; f++, o += 2) mono[f] = view.getInt16(o, true) / 32768;
        return;
      }
      for (let i = 0, o = start; i < n; i++, o += 2) out[i % channels]![(i / channels) | 0] = view.getInt16(o, true) / 32768;
      return;
    case 24:
      for (let i = 0, o = start; i < n; i++, o += 3) {
        out[i % channels]![(i / channels) | 0] = (((bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16)) << 8) >> 8) / 8388608;
      }
      return;
    case 32:
      for (let i = 0, o = start; i < n; i++, o += 4) out[i % channels]![(i / channels) | 0] = view.getInt32(o, true) / 2147483648;
      return;
  }
}

export interface AudioDecoderOptions {
  /**
   * Decode into buffers kept from push to push: the arrays returned are views that stay valid only
   * until the next `push` or `flush` (the live front end, which copies what it keeps). Default
   * false: every call returns arrays of its own.
   */
  reuseOutput?: boolean;
}

/** Creates a stateful decoder for one session stream. Throws on an unsupported format. */
export function createAudioDecoder(format: AudioFormat, options: AudioDecoderOptions = {}): AudioDecoder {
  validateAudioFormat(format);
  const frameBytes = bytesPerFrame(format);
  const channels = format.channels;
  const header = new WavHeaderSkipper(format);
  /** The bytes of a partial frame held for the next push (fewer than `frameBytes`). */
  const remainder = new Uint8Array(frameBytes);
  let remainderLength = 0;
  let bytesReceived = 0;
  let framesDecoded = 0;
  let outputs: Float32Array[] = Array.from({ length: channels }, () => new Float32Array(options.reuseOutput ? 4096 : 0));

  /** The views of the last push (frames arrive in pieces of one size: the same views serve again). */
  let views: Float32Array[] = outputs;

  /** Per-channel arrays for `frames` frames: views of the kept buffers, or new arrays. */
  function output(frames: number): Float32Array[] {
    if (!options.reuseOutput) return Array.from({ length: channels }, () => new Float32Array(frames));
    if (views[0]!.length === frames && views[0]!.buffer === outputs[0]!.buffer) return views;
    if (outputs[0]!.length < frames) outputs = Array.from({ length: channels }, () => new Float32Array(Math.max(frames, 2 * outputs[0]!.length)));
    views = outputs.map((o) => o.subarray(0, frames));
    return views;
  }

  function decode(payload: Uint8Array): Float32Array[] {
    // A frame split across pushes: complete it from the payload's first bytes.
    let head = 0;
    let carried = 0;
    if (remainderLength > 0) {
      head = Math.min(frameBytes - remainderLength, payload.length);
      remainder.set(payload.subarray(0, head), remainderLength);
      remainderLength += head;
      if (remainderLength === frameBytes) {
        carried = 1;
        remainderLength = 0;
      }
    }
    const frames = Math.floor((payload.length - head) / frameBytes);
    const out = output(carried + frames);
    if (carried) {
      const one = out.map((o) => o.subarray(0, 1));
      decodeFrames(format, remainder, 0, 1, one);
    }
    decodeFrames(format, payload, head, frames, carried ? out.map((o) => o.subarray(1)) : out);
    const used = head + frames * frameBytes;
    if (used < payload.length) {
      remainder.set(payload.subarray(used), remainderLength);
      remainderLength += payload.length - used;
    }
    framesDecoded += carried + frames;
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
      remainderLength = 0;
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
