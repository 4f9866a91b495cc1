/**
 * Whisper's log-mel front end, matching openai/whisper `log_mel_spectrogram`: 16 kHz audio,
 * n_fft 400, hop 160, periodic Hann, centred reflect padding, |STFT|^2 with the last frame
 * dropped, mel filter bank (80 or 128 bands), log10(max(x, 1e-10)), floor at max − 8, (x + 4) / 4.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { applyFilterBank, melFilterBank } from "./mel.ts";
import { powerSpectrogram } from "./stft.ts";
import { periodicHann } from "./window.ts";

export const WHISPER_SAMPLE_RATE = 16000;
export const WHISPER_N_FFT = 400;
export const WHISPER_HOP = 160;
/** 30 s at 16 kHz: the fixed input length of Whisper encoders. */
export const WHISPER_CHUNK_SAMPLES = 480000;
const N_BINS = WHISPER_N_FFT / 2 + 1;

export type WhisperMelBands = 80 | 128;

/**
 * Loads Whisper's shipped mel filters (`mel_80.f32` / `mel_128.f32`: raw little-endian float32,
 * [nMels, 201]) from a directory such as `<MODELS_DIR>/whisper-assets`.
 */
export function loadWhisperMelFilters(assetsDir: string, nMels: WhisperMelBands): Float32Array {
  if (nMels !== 80 && nMels !== 128) throw new RangeError(`Whisper uses 80 or 128 mel bands, not ${nMels}`);
  const file = join(assetsDir, `mel_${nMels}.f32`);
  const bytes = readFileSync(file);
  if (bytes.byteLength !== nMels * N_BINS * 4) {
    throw new Error(`${file}: expected ${nMels * N_BINS * 4} bytes, found ${bytes.byteLength}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(nMels * N_BINS);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/**
 * Computes Whisper's mel filters from first principles (librosa
 * `filters.mel(sr=16000, n_fft=400, n_mels=nMels)`: Slaney scale and normalisation).
 */
export function computeWhisperMelFilters(nMels: WhisperMelBands): Float32Array {
  return melFilterBank({ sampleRate: WHISPER_SAMPLE_RATE, nFft: WHISPER_N_FFT, nMels, scale: "slaney", norm: "slaney" });
}

const filterCache = new Map<number, Float32Array>();
const hann400 = periodicHann(WHISPER_N_FFT);

export interface WhisperLogMelOptions {
  /** Pad with zeros, or trim, to exactly this many samples first (whisper's `pad_or_trim`). */
  padToSamples?: number;
  /** Filter bank to use instead of the computed one (e.g. from `loadWhisperMelFilters`). */
  filters?: Float32Array;
  /**
   * Zero-mean unit-variance normalisation of the waveform (after padding) before the spectrogram:
   * (x − mean) / sqrt(var + 1e-7), as the Hugging Face `WhisperFeatureExtractor` does with
   * `do_normalize=True` (Smart Turn's front end).
   */
  normalize?: boolean;
}

/** (x − mean) / sqrt(var + 1e-7) over the whole signal (population variance). */
export function normalizeWaveform(x: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += x[i]!;
  const mean = x.length ? sum / x.length : 0;
  let sq = 0;
  for (let i = 0; i < x.length; i++) sq += (x[i]! - mean) ** 2;
  const scale = 1 / Math.sqrt((x.length ? sq / x.length : 0) + 1e-7);
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = (x[i]! - mean) * scale;
  return out;
}

/**
 * Whisper log-mel spectrogram of 16 kHz mono audio. Returns row-major [nMels, nFrames] with
 * nFrames = floor(samples / 160) (after padding/trimming).
 */
export function whisperLogMel(
  samples: Float32Array,
  nMels: WhisperMelBands,
  opts: WhisperLogMelOptions = {},
): { data: Float32Array; nFrames: number } {
  if (nMels !== 80 && nMels !== 128) throw new RangeError(`Whisper uses 80 or 128 mel bands, not ${nMels}`);
  let audio = samples;
  if (opts.padToSamples !== undefined) {
    const target = opts.padToSamples;
    if (!Number.isInteger(target) || target < 0) throw new RangeError(`padToSamples must be a non-negative integer`);
    if (audio.length !== target) {
      const resized = new Float32Array(target);
      resized.set(audio.length > target ? audio.subarray(0, target) : audio);
      audio = resized;
    }
  }
  if (opts.normalize) audio = normalizeWaveform(audio);
  let filters = opts.filters;
  if (!filters) {
    filters = filterCache.get(nMels);
    if (!filters) {
      filters = computeWhisperMelFilters(nMels);
      filterCache.set(nMels, filters);
    }
  }
  if (filters.length !== nMels * N_BINS) throw new RangeError("filter bank does not match n_mels × 201");
  if (audio.length === 0) return { data: new Float32Array(0), nFrames: 0 };

  const spec = powerSpectrogram(audio, { nFft: WHISPER_N_FFT, hop: WHISPER_HOP, window: hann400, center: true });
  const nFrames = spec.nFrames - 1; // whisper drops the last STFT frame
  const mel = applyFilterBank(filters, nMels, spec.data, nFrames, N_BINS);
  let max = -Infinity;
  for (let i = 0; i < mel.length; i++) {
    const v = Math.log10(Math.max(mel[i], 1e-10));
    mel[i] = v;
    if (v > max) max = v;
  }
  const floor = max - 8;
  const data = new Float32Array(mel.length);
  for (let i = 0; i < mel.length; i++) data[i] = (Math.max(mel[i], floor) + 4) / 4;
  return { data, nFrames };
}
