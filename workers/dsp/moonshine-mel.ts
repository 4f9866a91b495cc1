/**
 * Moonshine-micro front end for the isolated-token recognizer: exactly 1 s of 16 kHz audio
 * (zero-padded or cropped, front-aligned), n_fft 512, periodic Hann 512, hop 125, centred reflect
 * padding, power 2, 64 Slaney mel bands 20–8000 Hz, log(x + 1e-6), first 128 frames, the whole
 * 64×128 plane standardised by its mean and Bessel-corrected std (std clamped at 1e-3).
 */
import { applyFilterBank, melFilterBank } from "./mel.ts";
import { powerSpectrogram } from "./stft.ts";
import { periodicHann } from "./window.ts";

const MOONSHINE_SAMPLE_RATE = 16000;
export const MOONSHINE_CLIP_SAMPLES = 16000;
export const MOONSHINE_N_MELS = 64;
export const MOONSHINE_FRAMES = 128;
const N_FFT = 512;
const HOP = 125;
const N_BINS = N_FFT / 2 + 1;

let filters: Float32Array | undefined;
const hann512 = periodicHann(N_FFT);

/** The 64-band Slaney filter bank (20–8000 Hz, n_fft 512, 16 kHz) used by the front end. */
function moonshineMelFilters(): Float32Array {
  filters ??= melFilterBank({
    sampleRate: MOONSHINE_SAMPLE_RATE, nFft: N_FFT, nMels: MOONSHINE_N_MELS,
    fMin: 20, fMax: 8000, scale: "slaney", norm: "slaney",
  });
  return filters;
}

/** Log-mel features for one clip, as the model input tensor data [1, 1, 64, 128] (row-major). */
export function moonshineLogMel(samples: Float32Array): Float32Array {
  const clip = new Float32Array(MOONSHINE_CLIP_SAMPLES);
  clip.set(samples.length > clip.length ? samples.subarray(0, clip.length) : samples);
  const spec = powerSpectrogram(clip, { nFft: N_FFT, hop: HOP, window: hann512, center: true });
  const nFrames = Math.min(MOONSHINE_FRAMES, spec.nFrames);
  const mel = applyFilterBank(moonshineMelFilters(), MOONSHINE_N_MELS, spec.data, nFrames, N_BINS);
  const count = MOONSHINE_N_MELS * MOONSHINE_FRAMES;
  const plane = new Float64Array(count);
  for (let m = 0; m < MOONSHINE_N_MELS; m++) {
    for (let t = 0; t < MOONSHINE_FRAMES; t++) {
      plane[m * MOONSHINE_FRAMES + t] = Math.log(mel[m * nFrames + t] + 1e-6);
    }
  }
  let sum = 0;
  for (let i = 0; i < count; i++) sum += plane[i];
  const mean = sum / count;
  let sq = 0;
  for (let i = 0; i < count; i++) sq += (plane[i] - mean) ** 2;
  const std = Math.max(Math.sqrt(sq / (count - 1)), 1e-3);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (plane[i] - mean) / std;
  return out;
}
