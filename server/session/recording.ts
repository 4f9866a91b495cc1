/**
 * The session recording: the deduplicated session byte stream decoded and encoded to FLAC.
 * G.711 (a-law / µ-law) is stored as 16-bit; PCM keeps its bit depth.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { createAudioDecoder, type AudioDecoder } from "../audio/decoder.ts";
import type { AudioFormat } from "../audio/format.ts";
import { createFlacRecorder, type FlacRecorder, type InputBitsPerSample } from "../recording/flac.ts";

export interface SessionRecording {
  /** Appends session bytes (WAV header, if any, is skipped by the decoder). */
  write(bytes: Uint8Array): void;
  /** Completes the file; resolves with its path and duration. */
  finish(): Promise<{ path: string; durationS: number }>;
  abort(): Promise<void>;
  /** First write error, if one happened (the recording is then abandoned). */
  readonly failure: Error | null;
}

export function createSessionRecording(format: AudioFormat, path: string): SessionRecording {
  const decoder: AudioDecoder = createAudioDecoder(format);
  mkdirSync(dirname(path), { recursive: true });
  const bits: InputBitsPerSample = format.encoding === "wav/pcm" ? format.bitDepth : 16;
  const recorder: FlacRecorder = createFlacRecorder({ path, sampleRate: format.sampleRate, channels: format.channels, bitsPerSample: bits });
  let failure: Error | null = null;
  let writes: Promise<void> = Promise.resolve();
  const put = (channels: Float32Array[]) => {
    if (failure || channels.length === 0 || channels[0]!.length === 0) return;
    writes = writes.then(() => recorder.write(channels)).catch((e: Error) => {
      failure ??= e;
    });
  };
  return {
    write(bytes) {
      put(decoder.push(bytes));
    },
    async finish() {
      put(decoder.flush());
      await writes;
      if (failure) throw failure;
      const r = await recorder.finish();
      return { path: r.path, durationS: r.durationS };
    },
    async abort() {
      await writes;
      await recorder.abort().catch(() => {});
    },
    get failure() {
      return failure;
    },
  };
}
