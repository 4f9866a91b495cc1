/**
 * The session recording. While the session runs, the deduplicated session byte stream is appended to
 * a spool file next to the recording (`<id>.flac.spool`); when it ends, the spool is decoded and
 * encoded to FLAC, then removed. The spool outlives a process restart, so a resumed session keeps
 * recording where the previous process stopped. G.711 (A-law / µ-law) is stored as 16-bit; PCM keeps
 * its bit depth.
 */
import { createReadStream, createWriteStream, mkdirSync, statSync, type WriteStream } from "node:fs";
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
  /** Drops the recording and its spool. */
  abort(): Promise<void>;
  /** First write error, if one happened (the recording is then abandoned). */
  readonly failure: Error | null;
}

const end = (stream: WriteStream) => new Promise<void>((resolve) => (stream.closed ? resolve() : stream.end(resolve)));

/**
 * Opens the recording of a session at `path`. With `resume`, an existing spool (from a process that
 * stopped mid-session) is continued.
 */
export function createSessionRecording(format: AudioFormat, path: string, opts: { resume?: boolean } = {}): SessionRecording {
  mkdirSync(dirname(path), { recursive: true });
  const spoolPath = `${path}.spool`;
  let length = 0;
  if (opts.resume) {
    try {
      length = statSync(spoolPath).size;
    } catch {
      length = 0;
    }
  }
  const spool = createWriteStream(spoolPath, { flags: opts.resume ? "a" : "w" });
  let failure: Error | null = null;
  spool.on("error", (e) => {
    failure ??= e;
  });

  async function encode(): Promise<{ path: string; durationS: number }> {
    const decoder = createAudioDecoder(format);
    const bits: InputBitsPerSample = format.encoding === "wav/pcm" ? format.bitDepth : 16;
    const recorder = createFlacRecorder({ path, sampleRate: format.sampleRate, channels: format.channels, bitsPerSample: bits });
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

  return {
    write(bytes, offset) {
      if (failure) return;
      if (offset > length) failure = new Error(`recording gap: bytes ${length}..${offset} of the session never reached the spool`);
      const skip = Math.max(0, length - offset);
      if (skip >= bytes.length) return;
      // Copied: the caller may reuse its buffer before the stream writes it.
      spool.write(Buffer.from(bytes.subarray(skip)));
      length += bytes.length - skip;
    },
    async finish() {
      await end(spool);
      if (failure) throw failure;
      try {
        return await encode();
      } finally {
        await rm(spoolPath, { force: true });
      }
    },
    async suspend() {
      await end(spool);
    },
    async abort() {
      await end(spool);
      await rm(spoolPath, { force: true });
    },
    get failure() {
      return failure;
    },
  };
}
