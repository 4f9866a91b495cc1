/** The benchmark's audio: short utterances separated by silence, as 16 kHz mono 16-bit PCM. */
import path from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";

export const RATE = 16000;
export const SHARED_AUDIO = path.resolve(import.meta.dir, "../../../shared/audio");

/**
 * The clips named, each followed by `gapS` of quiet, after `leadS` of quiet. "Quiet" is a
 * microphone's noise floor (deterministic white noise at about −66 dBFS, a few LSB of 16-bit PCM),
 * added to the whole stream: a live microphone never sends digital zeros, and the acknowledgment
 * ledger cannot place an unambiguous ack inside all-zero audio (it postpones it, by design).
 */
export function benchSamples(names: string[], gapS = 1, leadS = 0.5, noise = 0.0005): Float32Array {
  const parts: Float32Array[] = [new Float32Array(Math.round(leadS * RATE))];
  for (const n of names) {
    parts.push(readWavFile(path.join(SHARED_AUDIO, `${n}.wav`)).samples);
    parts.push(new Float32Array(Math.round(gapS * RATE)));
  }
  const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  const next = xorshift32(0x2545f491);
  for (let i = 0; i < out.length; i++) out[i]! += noise * ((next() >>> 0) / 0x80000000 - 1);
  return out;
}

/** A deterministic xorshift32 sequence (signed 32-bit states) from `seed`: the benchmarks' noise floor. */
export function xorshift32(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s;
  };
}

/** Default stream: the spelling clips (the recognizer serving trantoria-1 understands them). */
export const DEFAULT_CLIPS = ["a", "b", "c", "zero", "double_u", "bee", "a", "zero", "c", "b"].map((n) => `spelling/${n}`);

export function toPcm16(samples: Float32Array): Uint8Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768)));
  return new Uint8Array(out.buffer);
}

/** Frames of `ms` milliseconds of 16-bit mono PCM at 16 kHz. */
export function frames(pcm: Uint8Array, ms = 100): Uint8Array[] {
  const size = (RATE * 2 * ms) / 1000;
  const out: Uint8Array[] = [];
  for (let o = 0; o < pcm.length; o += size) out.push(pcm.subarray(o, Math.min(pcm.length, o + size)));
  return out;
}
