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
const WHISPER_N_FFT = 400;
const WHISPER_HOP = 160;
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
   * How the frames after the audio are filled when `padToSamples` lengthens it:
   * - `"audio"` (openai/whisper and Hugging Face): the audio is padded with zeros, so those frames are
   *   the floor value (max − 8 + 4) / 4;
   * - `"features"` (faster-whisper): the log-mel of the audio (and 160 zero samples) is normalised on
   *   its own and the features are padded with 0.
   */
  tail?: "audio" | "features";
  /**
   * Zero-mean unit-variance normalisation of the waveform (after padding or trimming to
   * `padToSamples`) before the spectrogram: (x − mean) / sqrt(var + 1e-7), as the Hugging Face
   * `WhisperFeatureExtractor` does with `do_normalize=True` (Smart Turn's front end).
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

/** Power spectrum frames of `audio` followed by `zeros` zero samples (centred, reflect-padded). */
function melFrames(audio: Float32Array, filters: Float32Array, nMels: number, zeros: number): { mel: Float64Array; nFrames: number } {
  let signal = audio;
  if (zeros > 0) {
    signal = new Float32Array(audio.length + zeros);
    signal.set(audio);
  }
  const spec = powerSpectrogram(signal, { nFft: WHISPER_N_FFT, hop: WHISPER_HOP, window: hann400, center: true });
  const nFrames = spec.nFrames - 1; // whisper drops the last STFT frame
  return { mel: applyFilterBank(filters, nMels, spec.data, nFrames, N_BINS), nFrames };
}

/**
 * Whisper log-mel spectrogram of 16 kHz mono audio. Returns row-major [nMels, nFrames] with
 * nFrames = floor(samples / 160) (after padding/trimming).
 *
 * Frames whose window lies wholly in the zero padding are not computed: their power is exactly 0,
 * so their log-mel is log10(1e-10) before the floor, as the full computation would give.
 */
export function whisperLogMel(
  input: Float32Array,
  nMels: WhisperMelBands,
  opts: WhisperLogMelOptions = {},
): { data: Float32Array; nFrames: number } {
  if (nMels !== 80 && nMels !== 128) throw new RangeError(`Whisper uses 80 or 128 mel bands, not ${nMels}`);
  let samples = input;
  if (opts.normalize) {
    // normalised after padding: the padded signal is built whole, then normalised
    const n = opts.padToSamples ?? input.length;
    if (n !== input.length && Number.isInteger(n) && n >= 0) {
      samples = new Float32Array(n);
      samples.set(input.subarray(0, n));
    }
    samples = normalizeWaveform(samples);
  }
  let filters = opts.filters;
  if (!filters) {
    filters = filterCache.get(nMels);
    if (!filters) {
      filters = computeWhisperMelFilters(nMels);
      filterCache.set(nMels, filters);
    }
  }
  if (filters.length !== nMels * N_BINS) throw new RangeError("filter bank does not match n_mels × 201");
  const target = opts.padToSamples;
  if (target !== undefined && (!Number.isInteger(target) || target < 0)) throw new RangeError(`padToSamples must be a non-negative integer`);
  const audio = target !== undefined && samples.length > target ? samples.subarray(0, target) : samples;
  const totalSamples = target ?? audio.length;
  const nFrames = Math.floor(totalSamples / WHISPER_HOP);
  if (totalSamples === 0 || nFrames === 0) return { data: new Float32Array(0), nFrames: 0 };
  if (audio.length === 0) {
    // All zeros: every frame is log10(1e-10) = −10, floored at itself → (−10 + 4) / 4; features padding gives 0.
    return { data: new Float32Array(nMels * nFrames).fill(opts.tail === "features" ? 0 : -1.5), nFrames };
  }

  // Zeros needed after the audio so that every frame touching it is computed exactly: half a window
  // (plus the centring), but never beyond the padded length.
  const padding = totalSamples - audio.length;
  const features = opts.tail === "features" && padding > 0;
  const zeros = features ? Math.min(padding, WHISPER_HOP) : Math.min(padding, WHISPER_N_FFT + WHISPER_HOP);
  const computed = melFrames(audio, filters, nMels, zeros);
  const nComputed = Math.min(computed.nFrames, nFrames);
  const mel = computed.mel;
  let max = -Infinity;
  for (let m = 0; m < nMels; m++) {
    for (let t = 0; t < nComputed; t++) {
      const i = m * computed.nFrames + t;
      const v = Math.log10(Math.max(mel[i], 1e-10));
      mel[i] = v;
      if (v > max) max = v;
    }
  }
  if (!features && nComputed < nFrames) max = Math.max(max, -10);
  const floor = max - 8;
  const data = new Float32Array(nMels * nFrames);
  const tailValue = features ? 0 : (Math.max(-10, floor) + 4) / 4;
  for (let m = 0; m < nMels; m++) {
    const row = m * nFrames;
    for (let t = 0; t < nComputed; t++) data[row + t] = (Math.max(mel[m * computed.nFrames + t], floor) + 4) / 4;
    if (nComputed < nFrames) data.fill(tailValue, row + nComputed, row + nFrames);
  }
  return { data, nFrames };
}
