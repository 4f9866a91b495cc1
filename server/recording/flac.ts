/**
 * Incremental FLAC recording of a session's audio with libFLAC (libflacjs).
 *
 * Samples are encoded in modest blocks (default 4096 frames) with a yield to
 * the event loop between blocks, written to `<path>.partial`, and the file is
 * renamed to `<path>` by `finish()` after the STREAMINFO block has been
 * completed (total samples, frame sizes, MD5), which a streaming encoder can
 * only know at the end.
 *
 * Stored sample formats:
 * - 8, 16 and 24-bit integer input is stored losslessly at the same depth
 *   (8-bit samples must be signed, -128..127: unsigned PCM is shifted by the
 *   decoder first).
 * - 32-bit integer input is stored as 24-bit (the low 8 bits are dropped by an
 *   arithmetic shift), which keeps files decodable by every FLAC decoder.
 * - A-law and mu-law audio is decoded to 16-bit by the audio decoder first and
 *   recorded as 16-bit.
 * - Float input (one Float32Array per channel, -1..1) is scaled to the stored
 *   depth, rounded and clamped.
 *
 * The asm.js build of libflacjs is used: its WebAssembly loader tries to fetch
 * a file path, which Bun's fetch refuses.
 */
import { open, rename, rm, type FileHandle } from "node:fs/promises";
import libFactory from "libflacjs";

type Flac = ReturnType<typeof libFactory>;

let flacPromise: Promise<Flac> | null = null;

/** Loads libFLAC once and waits until it is ready. */
function loadFlac(): Promise<Flac> {
  flacPromise ??= new Promise<Flac>((resolve) => {
    const flac = libFactory("release");
    if (flac.isReady()) resolve(flac);
    else flac.on("ready", () => resolve(flac));
  });
  return flacPromise;
}

export type InputBitsPerSample = 8 | 16 | 24 | 32;

export interface FlacRecorderOptions {
  /** Final file path; the file is written as `<path>.partial` until `finish()`. */
  path: string;
  sampleRate: number;
  channels: number;
  /** Bit depth of the integer samples given to `write` (8, 16, 24 or 32). */
  bitsPerSample: InputBitsPerSample;
  /** libFLAC compression level 0..8 (default 5). */
  compressionLevel?: number;
  /** Frames (samples per channel) encoded per step before yielding (default 4096). */
  blockFrames?: number;
}

export interface FlacRecordingResult {
  path: string;
  durationS: number;
  bytes: number;
  totalSamples: number;
  storedBitsPerSample: number;
}

export interface FlacRecorder {
  /** Bit depth written to the file. */
  readonly storedBitsPerSample: number;
  /**
   * Appends audio: interleaved integer samples (Int32Array, values in the
   * range of `bitsPerSample`) or one Float32Array per channel (-1..1).
   * Calls are applied in order; the promise rejects on invalid input.
   */
  write(samples: Int32Array | Float32Array[]): Promise<void>;
  /** Completes the file and renames it into place. */
  finish(): Promise<FlacRecordingResult>;
  /** Stops and removes the partial file. */
  abort(): Promise<void>;
}

/** Invalid recorder options or samples. */
export class FlacRecorderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FlacRecorderError";
  }
}

const STREAMINFO_BODY_OFFSET = 8; // "fLaC" + metadata block header
const HEADER_BYTES = STREAMINFO_BODY_OFFSET + 34;

interface StreamInfoUpdate {
  min_framesize: number;
  max_framesize: number;
  total_samples: number;
  md5sum: string;
}

/** Creates a recorder; invalid options throw FlacRecorderError at once. */
export function createFlacRecorder(options: FlacRecorderOptions): FlacRecorder {
  const { path, sampleRate, channels, bitsPerSample } = options;
  if (!Number.isInteger(sampleRate) || sampleRate < 1 || sampleRate > 655_350) {
    throw new FlacRecorderError(`unsupported sample rate ${sampleRate}`);
  }
  if (!Number.isInteger(channels) || channels < 1 || channels > 8) {
    throw new FlacRecorderError(`unsupported channel count ${channels} (1 to 8)`);
  }
  if (![8, 16, 24, 32].includes(bitsPerSample)) {
    throw new FlacRecorderError(`unsupported bits per sample ${bitsPerSample} (8, 16, 24 or 32)`);
  }
  const storedBits = bitsPerSample === 32 ? 24 : bitsPerSample;
  const compression = Math.min(8, Math.max(0, Math.floor(options.compressionLevel ?? 5)));
  const blockFrames = Math.max(256, Math.floor(options.blockFrames ?? 4096));
  const partialPath = `${path}.partial`;
  const inputMin = -(2 ** (bitsPerSample - 1));
  const inputMax = 2 ** (bitsPerSample - 1) - 1;
  const shift = bitsPerSample - storedBits;

  let flac: Flac;
  let encoder = 0;
  let file: FileHandle | null = null;
  const pending: Uint8Array[] = [];
  const header = new Uint8Array(HEADER_BYTES);
  let headerFilled = 0;
  let bytesWritten = 0;
  let totalFrames = 0;
  let streamInfo: StreamInfoUpdate | null = null;
  let state: "open" | "finishing" | "done" | "aborted" | "failed" = "open";

  const onWrite = (data: Uint8Array, length: number) => {
    const bytes = data.slice(0, length);
    if (headerFilled < HEADER_BYTES) {
      const take = Math.min(HEADER_BYTES - headerFilled, bytes.length);
      header.set(bytes.subarray(0, take), headerFilled);
      headerFilled += take;
    }
    pending.push(bytes);
  };

  const flush = async () => {
    if (pending.length === 0 || !file) return;
    const buffer = Buffer.concat(pending.splice(0));
    await file.write(buffer, 0, buffer.length, bytesWritten);
    bytesWritten += buffer.length;
  };

  const release = async () => {
    if (encoder) {
      flac.FLAC__stream_encoder_delete(encoder);
      encoder = 0;
    }
    if (file) {
      await file.close().catch(() => undefined);
      file = null;
    }
  };

  // Every operation runs after the previous one, starting with initialisation.
  let chain: Promise<void> = (async () => {
    flac = await loadFlac();
    encoder = flac.create_libflac_encoder(sampleRate, channels, storedBits, compression as never, 0, false, 0);
    if (!encoder) throw new FlacRecorderError("libFLAC could not create an encoder");
    const status = flac.init_encoder_stream(encoder, onWrite as never, ((info: StreamInfoUpdate | undefined) => {
      if (info) streamInfo = info;
    }) as never);
    if (status !== 0) throw new FlacRecorderError(`libFLAC encoder init failed (status ${status})`);
    file = await open(partialPath, "w");
    await flush();
  })().catch(async (error) => {
    state = "failed";
    await release();
    throw error;
  });
  // Init failures surface on the next write/finish; do not report them as unhandled.
  chain.catch(() => undefined);

  const enqueue = <T>(step: () => Promise<T>): Promise<T> => {
    const result = chain.then(step);
    chain = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  };

  const toInterleaved = (samples: Int32Array | Float32Array[]): Int32Array => {
    if (samples instanceof Int32Array) {
      if (samples.length % channels !== 0) {
        throw new FlacRecorderError(`sample count ${samples.length} is not a multiple of ${channels} channels`);
      }
      const out = shift > 0 || !(samples.buffer instanceof ArrayBuffer) ? new Int32Array(samples.length) : samples;
      for (let i = 0; i < samples.length; i++) {
        const v = samples[i];
        if (v < inputMin || v > inputMax) {
          throw new FlacRecorderError(`sample ${v} at index ${i} is outside the ${bitsPerSample}-bit range`);
        }
        if (out !== samples) out[i] = v >> shift;
      }
      return out;
    }
    if (!Array.isArray(samples) || samples.length !== channels || !samples.every((c) => c instanceof Float32Array)) {
      throw new FlacRecorderError(`expected an Int32Array or ${channels} Float32Array channel(s)`);
    }
    const frames = samples[0].length;
    if (!samples.every((c) => c.length === frames)) throw new FlacRecorderError("channels differ in length");
    const scale = 2 ** (storedBits - 1);
    const max = scale - 1;
    const out = new Int32Array(frames * channels);
    for (let ch = 0; ch < channels; ch++) {
      const data = samples[ch];
      for (let i = 0; i < frames; i++) {
        const x = data[i];
        const v = Number.isFinite(x) ? Math.round(x * scale) : 0;
        out[i * channels + ch] = v > max ? max : v < -scale ? -scale : v;
      }
    }
    return out;
  };

  return {
    storedBitsPerSample: storedBits,

    write(samples) {
      if (state !== "open") return Promise.reject(new FlacRecorderError(`recorder is ${state}`));
      let interleaved: Int32Array;
      try {
        interleaved = toInterleaved(samples);
      } catch (error) {
        return Promise.reject(error);
      }
      return enqueue(async () => {
        if (state !== "open") throw new FlacRecorderError(`recorder is ${state}`);
        const frames = interleaved.length / channels;
        for (let start = 0; start < frames; start += blockFrames) {
          const count = Math.min(blockFrames, frames - start);
          const block = interleaved.subarray(start * channels, (start + count) * channels);
          if (!flac.FLAC__stream_encoder_process_interleaved(encoder, block as Int32Array<ArrayBuffer>, count)) {
            state = "failed";
            throw new FlacRecorderError(`libFLAC encoding failed (state ${flac.FLAC__stream_encoder_get_state(encoder)})`);
          }
          totalFrames += count;
          await flush();
          if (start + count < frames) await new Promise<void>((resolve) => setImmediate(resolve));
        }
      });
    },

    finish() {
      if (state !== "open") return Promise.reject(new FlacRecorderError(`recorder is ${state}`));
      state = "finishing";
      return enqueue(async () => {
        try {
          if (!flac.FLAC__stream_encoder_finish(encoder)) {
            throw new FlacRecorderError(`libFLAC finish failed (state ${flac.FLAC__stream_encoder_get_state(encoder)})`);
          }
          await flush();
          if (!streamInfo || headerFilled < HEADER_BYTES) throw new FlacRecorderError("libFLAC gave no STREAMINFO");
          const body = patchStreamInfo(header.subarray(STREAMINFO_BODY_OFFSET), streamInfo);
          await file!.write(body, 0, body.length, STREAMINFO_BODY_OFFSET);
          await file!.sync();
          await release();
          await rename(partialPath, path);
          state = "done";
          return {
            path,
            durationS: totalFrames / sampleRate,
            bytes: bytesWritten,
            totalSamples: totalFrames,
            storedBitsPerSample: storedBits,
          };
        } catch (error) {
          state = "failed";
          await release();
          await rm(partialPath, { force: true });
          throw error;
        }
      });
    },

    async abort() {
      if (state === "done" || state === "aborted") return;
      state = "aborted";
      await chain.catch(() => undefined);
      await release();
      await rm(partialPath, { force: true });
    },
  };
}

/** Returns a copy of the 34-byte STREAMINFO body with the end-of-stream fields filled in. */
function patchStreamInfo(original: Uint8Array, info: StreamInfoUpdate): Uint8Array {
  const body = Uint8Array.from(original);
  const put24 = (at: number, value: number) => {
    body[at] = (value >>> 16) & 0xff;
    body[at + 1] = (value >>> 8) & 0xff;
    body[at + 2] = value & 0xff;
  };
  put24(4, info.min_framesize);
  put24(7, info.max_framesize);
  const total = info.total_samples;
  const high = Math.floor(total / 2 ** 32) & 0x0f;
  body[13] = (body[13] & 0xf0) | high;
  new DataView(body.buffer).setUint32(14, total >>> 0);
  if (/^[0-9a-f]{32}$/i.test(info.md5sum)) {
    for (let i = 0; i < 16; i++) body[18 + i] = parseInt(info.md5sum.slice(2 * i, 2 * i + 2), 16);
  }
  return body;
}
