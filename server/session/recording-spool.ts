/**
 * The session recording. While the session runs, the deduplicated session byte stream is appended to
 * a spool file next to the recording (`<id>.flac.spool`); when it ends, the spool is decoded and
 * encoded to FLAC, then removed. The spool outlives a process restart, so a resumed session keeps
 * recording where the previous process stopped. G.711 (A-law / µ-law) is stored as 16-bit; PCM keeps
 * its bit depth.
 */
import { closeSync, createReadStream, mkdirSync, openSync, statSync, truncateSync, writeSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import { createAudioDecoder } from "../audio/decoder.ts";
import type { AudioFormat } from "../audio/format.ts";
import { createFlacRecorder, type InputBitsPerSample } from "../recording/flac.ts";

export interface SessionRecording {
  /**
   * Appends session bytes that start at stream offset `offset`. Bytes the spool already holds (a
   * replay after a restart) are skipped, so every byte is recorded exactly once.
   */
  write(bytes: Uint8Array, offset: number): void;
  /** Completes the file; resolves with its path and duration. */
  finish(): Promise<{ path: string; durationS: number }>;
  /** Flushes the spool and keeps it, for a process that restarts and resumes the session. */
  suspend(): Promise<void>;
  /**
   * Before a checkpoint is stored: writes the bytes gathered in memory to the spool file unless it
   * already holds the stream up to offset `upTo` (the checkpoint's tail starts there and holds the
   * rest, so a restart loses nothing; without `upTo`, always).
   */
  flush(upTo?: number): void;
  /** Drops the recording and its spool. */
  abort(): Promise<void>;
  /** First write error, if one happened (the recording is then abandoned). */
  readonly failure: Error | null;
}

/** Spool bytes gathered in memory before one write (about 2 s of 16 kHz 16-bit mono). */
const SPOOL_BUFFER_BYTES = 64 * 1024;
/**
 * libFLAC level of the recordings: fixed predictors, no LPC search. On the benchmark's speech it
 * encodes in 1.2 ms of CPU per audio-second instead of level 5's 2.9 (on the service's main thread,
 * once per session), for a file 1.7 % larger.
 */
const RECORDING_COMPRESSION_LEVEL = 2;
/** Longest a byte waits in memory before it reaches the spool file. */
const SPOOL_FLUSH_MS = 1000;

/**
 * The point a resumed recording continues from: the stream offset the restored session has
 * received, and the retained raw bytes before it.
 */
export interface RecordingResumePoint {
  received: number;
  tailStart: number;
  tail: Uint8Array;
}

/**
 * Opens the recording of a session at `path`. With `resume`, an existing spool (from a process that
 * stopped mid-session, or died) is continued, realigned to the restored session's stream: bytes past
 * `received` are cut (the client sends them again), and bytes missing before it are taken from the
 * restored tail, so the spool holds each stream byte once, as an uninterrupted run would.
 */
export function createSessionRecording(format: AudioFormat, path: string, opts: { resume?: RecordingResumePoint } = {}): SessionRecording {
  mkdirSync(dirname(path), { recursive: true });
  const spoolPath = `${path}.spool`;
  let length = 0;
  let missing: Uint8Array | null = null;
  let gap: Error | null = null;
  if (opts.resume) {
    const { received, tailStart, tail } = opts.resume;
    try {
      length = statSync(spoolPath).size;
    } catch {
      length = 0;
    }
    if (length > received) {
      truncateSync(spoolPath, received);
      length = received;
    } else if (length < received) {
      if (length >= tailStart) missing = tail.subarray(length - tailStart, received - tailStart);
      else gap = new Error(`recording gap: bytes ${length}..${tailStart} of the session are neither spooled nor retained`);
    }
  }
  // One file descriptor and one preallocated buffer: a frame is a copy into the buffer; the file
  // gets one write per 64 KiB, per second, and at suspend / finish.
  let failure: Error | null = gap;
  let fd: number | null = null;
  try {
    fd = openSync(spoolPath, opts.resume ? "a" : "w");
  } catch (e) {
    failure = e as Error;
  }
  const buffer = Buffer.allocUnsafe(SPOOL_BUFFER_BYTES);
  let buffered = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    if (buffered === 0 || fd === null) return;
    try {
      let done = 0;
      while (done < buffered) done += writeSync(fd, buffer, done, buffered - done);
    } catch (e) {
      failure ??= e as Error;
    }
    buffered = 0;
  }

  function append(bytes: Uint8Array): void {
    if (bytes.length >= SPOOL_BUFFER_BYTES) {
      flush();
      try {
        let done = 0;
        while (done < bytes.length) done += writeSync(fd!, bytes, done, bytes.length - done);
      } catch (e) {
        failure ??= e as Error;
      }
      return;
    }
    if (buffered + bytes.length > SPOOL_BUFFER_BYTES) flush();
    buffer.set(bytes, buffered);
    buffered += bytes.length;
    if (!timer) {
      timer = setTimeout(flush, SPOOL_FLUSH_MS);
      timer.unref?.();
    }
  }

  function close(): void {
    flush();
    if (fd !== null) closeSync(fd);
    fd = null;
  }

  async function encode(): Promise<{ path: string; durationS: number }> {
    const decoder = createAudioDecoder(format);
    const bits: InputBitsPerSample = format.encoding === "wav/pcm" ? format.bitDepth : 16;
    const recorder = createFlacRecorder({ path, sampleRate: format.sampleRate, channels: format.channels, bitsPerSample: bits, compressionLevel: RECORDING_COMPRESSION_LEVEL });
    try {
      for await (const chunk of createReadStream(spoolPath, { highWaterMark: 1 << 20 })) {
        const channels = decoder.push(new Uint8Array(chunk as Buffer));
        if (channels[0]?.length) await recorder.write(channels);
      }
      const rest = decoder.flush();
      if (rest[0]?.length) await recorder.write(rest);
      const r = await recorder.finish();
      return { path: r.path, durationS: r.durationS };
    } catch (e) {
      await recorder.abort().catch(() => {});
      throw e;
    }
  }

  const recording: SessionRecording = {
    write(bytes, offset) {
      if (failure || fd === null) return;
      if (offset > length) failure = new Error(`recording gap: bytes ${length}..${offset} of the session never reached the spool`);
      const skip = Math.max(0, length - offset);
      if (skip >= bytes.length) return;
      append(bytes.subarray(skip));
      length += bytes.length - skip;
    },
    async finish() {
      close();
      if (failure) throw failure;
      try {
        return await encode();
      } finally {
        await rm(spoolPath, { force: true });
      }
    },
    async suspend() {
      close();
    },
    async abort() {
      close();
      await rm(spoolPath, { force: true });
    },
    flush(upTo) {
      if (upTo === undefined || length - buffered < upTo) flush();
    },
    get failure() {
      return failure;
    },
  };
  if (missing && missing.length > 0) recording.write(missing, length);
  return recording;
}
