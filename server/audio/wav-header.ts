/**
 * Streaming RIFF/WAVE header skipper.
 *
 * A client may send a whole WAV file instead of headerless samples. When the stream starts with
 * `RIFF....WAVE`, the header chunks are consumed (even when split across pushes) and only the
 * `data` chunk payload is passed on; the `fmt ` chunk is parsed so a disagreement with the
 * session's declared format can be reported. Any other stream passes through untouched.
 */

import type { AudioEncoding, AudioFormat, BitDepth } from "./format.ts";

/** Something about the stream the caller should know; decoding carries on regardless. */
export interface DecoderWarning {
  code: "wav_format_mismatch" | "wav_header_unusable" | "wav_trailing_bytes";
  message: string;
}

/** What the `fmt ` chunk of a WAV header declares. */
export interface WavFormatInfo {
  /** WAVE format tag (1 PCM, 3 IEEE float, 6 A-law, 7 µ-law; extensible resolved to its subformat). */
  formatTag: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
}

const FORMAT_TAGS: Record<AudioEncoding, number> = { "wav/pcm": 1, "wav/alaw": 6, "wav/ulaw": 7 };
const EXTENSIBLE = 0xfffe;
/** Give up looking for the `data` chunk after this many header bytes. */
const MAX_HEADER_BYTES = 1 << 20;

const ascii = (b: Uint8Array, at: number): string =>
  String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);

const u32 = (b: Uint8Array, at: number): number =>
  (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

const u16 = (b: Uint8Array, at: number): number => b[at]! | (b[at + 1]! << 8);

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Parses the payload of a `fmt ` chunk; null when it is too short to be one. */
export function parseFmtChunk(payload: Uint8Array): WavFormatInfo | null {
  if (payload.length < 16) return null;
  let formatTag = u16(payload, 0);
  if (formatTag === EXTENSIBLE && payload.length >= 26) formatTag = u16(payload, 24);
  return {
    formatTag,
    channels: u16(payload, 2),
    sampleRate: u32(payload, 4),
    bitsPerSample: u16(payload, 14),
  };
}

/** Lists the ways a WAV header disagrees with the session format (empty when it agrees). */
function describeFormatMismatch(info: WavFormatInfo, format: AudioFormat): string[] {
  const problems: string[] = [];
  if (info.formatTag !== FORMAT_TAGS[format.encoding]) {
    problems.push(`format tag ${info.formatTag} (session encoding ${format.encoding})`);
  }
  if (info.bitsPerSample !== (format.bitDepth as BitDepth)) {
    problems.push(`${info.bitsPerSample} bits per sample (session ${format.bitDepth})`);
  }
  if (info.sampleRate !== format.sampleRate) {
    problems.push(`${info.sampleRate} Hz (session ${format.sampleRate})`);
  }
  if (info.channels !== format.channels) {
    problems.push(`${info.channels} channels (session ${format.channels})`);
  }
  return problems;
}

type State = "probe" | "chunks" | "data" | "after-data" | "raw";

/** Stateful filter: feed it stream bytes, get back the audio payload bytes. */
export class WavHeaderSkipper {
  private state: State = "probe";
  private pending: Uint8Array = new Uint8Array(0);
  private skipRemaining = 0;
  private dataRemaining = Infinity;
  private headerBytes = 0;
  private readonly warnings: DecoderWarning[] = [];
  private fed = 0;
  /** The `fmt ` chunk of the stream's header, once seen. */
  header: WavFormatInfo | null = null;
  /**
   * Stream offset of the first audio byte: 0 for a headerless stream, the `data` payload offset
   * for a WAV stream, null while undecided.
   */
  payloadOffset: number | null = null;

  constructor(private readonly format: AudioFormat) {}

  /** Returns the audio payload contained in `bytes` (possibly empty). */
  feed(bytes: Uint8Array): Uint8Array {
    this.fed += bytes.length;
    switch (this.state) {
      case "raw":
        return bytes;
      case "data":
        return this.passData(bytes);
      case "after-data":
        return new Uint8Array(0);
      default:
        return this.parse(concat(this.pending, bytes));
    }
  }

  /** End of stream: bytes still held while deciding are returned as audio. */
  flush(): Uint8Array {
    const rest = this.state === "probe" ? this.pending : new Uint8Array(0);
    if (this.state === "probe") this.payloadOffset = 0;
    if (this.state === "chunks") {
      this.warn("wav_header_unusable", "the stream ended inside its WAV header; no audio found");
    }
    this.pending = new Uint8Array(0);
    return rest;
  }

  /** Warnings raised since the last call. */
  takeWarnings(): DecoderWarning[] {
    return this.warnings.splice(0);
  }

  private warn(code: DecoderWarning["code"], message: string): void {
    this.warnings.push({ code, message });
  }

  private passData(bytes: Uint8Array): Uint8Array {
    if (bytes.length <= this.dataRemaining) {
      this.dataRemaining -= bytes.length;
      return bytes;
    }
    const take = this.dataRemaining;
    this.dataRemaining = 0;
    this.state = "after-data";
    this.warn("wav_trailing_bytes", "bytes after the WAV data chunk are ignored");
    return bytes.subarray(0, take);
  }

  private parse(buf: Uint8Array): Uint8Array {
    const base = this.fed - buf.length; // stream offset of buf[0]
    let pos = 0;
    if (this.state === "probe") {
      const riff = [0x52, 0x49, 0x46, 0x46]; // "RIFF"
      const n = Math.min(buf.length, 4);
      for (let i = 0; i < n; i++) {
        if (buf[i] !== riff[i]) return this.toRaw(buf);
      }
      if (buf.length < 12) {
        this.pending = buf;
        return new Uint8Array(0);
      }
      if (ascii(buf, 8) !== "WAVE") return this.toRaw(buf);
      this.state = "chunks";
      pos = 12;
      this.headerBytes = 12;
    }
    while (this.state === "chunks") {
      if (this.skipRemaining > 0) {
        const skip = Math.min(this.skipRemaining, buf.length - pos);
        pos += skip;
        this.skipRemaining -= skip;
        this.headerBytes += skip;
        if (this.skipRemaining > 0) break;
      }
      if (this.headerBytes > MAX_HEADER_BYTES) {
        this.warn("wav_header_unusable", "no WAV data chunk in the first 1 MiB; decoding the rest as raw audio");
        this.state = "raw";
        this.payloadOffset = base + pos;
        return buf.subarray(pos);
      }
      if (buf.length - pos < 8) break;
      const id = ascii(buf, pos);
      const size = u32(buf, pos + 4);
      if (id === "data") {
        pos += 8;
        this.headerBytes += 8;
        this.state = "data";
        this.payloadOffset = base + pos;
        // Streaming writers put 0 or 0xFFFFFFFF when the length is not known yet.
        this.dataRemaining = size === 0 || size === 0xffffffff ? Infinity : size;
        this.pending = new Uint8Array(0);
        return this.passData(buf.subarray(pos));
      }
      if (id === "fmt ") {
        if (buf.length - pos < 8 + size) break; // wait for the whole fmt chunk
        this.onFmt(buf.subarray(pos + 8, pos + 8 + size));
      }
      const padded = size + (size & 1);
      pos += 8;
      this.headerBytes += 8;
      this.skipRemaining = padded;
    }
    this.pending = buf.slice(pos);
    return new Uint8Array(0);
  }

  private toRaw(buf: Uint8Array): Uint8Array {
    this.state = "raw";
    this.payloadOffset = 0;
    this.pending = new Uint8Array(0);
    return buf;
  }

  private onFmt(payload: Uint8Array): void {
    const info = parseFmtChunk(payload);
    if (!info) {
      this.warn("wav_header_unusable", "the WAV fmt chunk is too short to read; using the session format");
      return;
    }
    this.header = info;
    const problems = describeFormatMismatch(info, this.format);
    if (problems.length > 0) {
      this.warn(
        "wav_format_mismatch",
        `the WAV header declares ${problems.join(", ")}; decoding with the session format`,
      );
    }
  }
}
