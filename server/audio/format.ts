/**
 * Audio stream formats accepted by a session, and byte/time arithmetic over them.
 *
 * The pipeline counts byte ranges and milliseconds from the session start; these helpers keep
 * that arithmetic in one place.
 */

import { AudioEncodingSchema, BitDepthSchema } from "../../generated/openapi/schemas.gen.ts";
import type { AudioEncoding, BitDepth } from "../../generated/openapi/types.gen.ts";

export type { AudioEncoding, BitDepth } from "../../generated/openapi/types.gen.ts";

/** The encodings and bit depths of the contract. */
const AUDIO_ENCODINGS: readonly AudioEncoding[] = AudioEncodingSchema.enum;
const BIT_DEPTHS: readonly BitDepth[] = BitDepthSchema.enum;

/** The session's declared audio format. */
export interface AudioFormat {
  encoding: AudioEncoding;
  bitDepth: BitDepth;
  /** Frames per second (Hz). */
  sampleRate: number;
  /** Interleaved channel count (≥ 1). */
  channels: number;
}

/** Throws a clear error when a format cannot be decoded (unknown encoding, bad depth, …). */
export function validateAudioFormat(format: AudioFormat): void {
  if (!AUDIO_ENCODINGS.includes(format.encoding)) {
    throw new RangeError(`unsupported encoding ${JSON.stringify(format.encoding)}`);
  }
  if (!BIT_DEPTHS.includes(format.bitDepth)) {
    throw new RangeError(`unsupported bit depth ${format.bitDepth}`);
  }
  if (format.encoding !== "wav/pcm" && format.bitDepth !== 8) {
    throw new RangeError(`${format.encoding} is 8-bit, got bit depth ${format.bitDepth}`);
  }
  if (!Number.isInteger(format.sampleRate) || format.sampleRate <= 0) {
    throw new RangeError(`invalid sample rate ${format.sampleRate}`);
  }
  if (!Number.isInteger(format.channels) || format.channels < 1) {
    throw new RangeError(`invalid channel count ${format.channels}`);
  }
}

/** Bytes taken by one frame (one sample of every channel). */
export function bytesPerFrame(format: Pick<AudioFormat, "bitDepth" | "channels">): number {
  return (format.bitDepth / 8) * format.channels;
}

/** Duration in milliseconds of `frames` frames at `sampleRate`. */
export function framesToMs(frames: number, sampleRate: number): number {
  return (frames * 1000) / sampleRate;
}

/** Whole frames contained in `bytes` bytes (a trailing partial frame does not count). */
function bytesToFrames(bytes: number, format: Pick<AudioFormat, "bitDepth" | "channels">): number {
  return Math.floor(bytes / bytesPerFrame(format));
}

/** Milliseconds of audio in `bytes` bytes of payload (whole frames only). */
export function bytesToMs(bytes: number, format: AudioFormat): number {
  return framesToMs(bytesToFrames(bytes, format), format.sampleRate);
}

/** Payload bytes covering the first `ms` milliseconds, rounded down to a whole frame. */
export function msToBytes(ms: number, format: AudioFormat): number {
  const frames = Math.floor((ms * format.sampleRate) / 1000 + 1e-9);
  return frames * bytesPerFrame(format);
}
