/**
 * Mel scales and triangular mel filter banks, computed the way librosa's `filters.mel` does
 * (Slaney scale and Slaney area normalisation by default; HTK scale on request).
 */

export type MelScale = "slaney" | "htk";

const F_SP = 200 / 3;
const MIN_LOG_HZ = 1000;
const MIN_LOG_MEL = MIN_LOG_HZ / F_SP;
const LOG_STEP = Math.log(6.4) / 27;

/** Hertz → mel. */
export function hzToMel(hz: number, scale: MelScale = "slaney"): number {
  if (scale === "htk") return 2595 * Math.log10(1 + hz / 700);
  return hz >= MIN_LOG_HZ ? MIN_LOG_MEL + Math.log(hz / MIN_LOG_HZ) / LOG_STEP : hz / F_SP;
}

/** Mel → hertz. */
export function melToHz(mel: number, scale: MelScale = "slaney"): number {
  if (scale === "htk") return 700 * (10 ** (mel / 2595) - 1);
  return mel >= MIN_LOG_MEL ? MIN_LOG_HZ * Math.exp(LOG_STEP * (mel - MIN_LOG_MEL)) : F_SP * mel;
}

export interface MelFilterOptions {
  sampleRate: number;
  nFft: number;
  nMels: number;
  fMin?: number;
  /** Default sampleRate / 2. */
  fMax?: number;
  scale?: MelScale;
  /** "slaney" divides each triangle by its width in Hz (constant area); null leaves peaks at 1. */
  norm?: "slaney" | null;
}

/** Mel filter bank as float32, row-major [nMels, nFft/2 + 1] (librosa `filters.mel` semantics). */
export function melFilterBank(opts: MelFilterOptions): Float32Array {
  const { sampleRate, nFft, nMels } = opts;
  const fMin = opts.fMin ?? 0;
  const fMax = opts.fMax ?? sampleRate / 2;
  const scale = opts.scale ?? "slaney";
  const norm = opts.norm === undefined ? "slaney" : opts.norm;
  if (nMels < 1 || nFft < 2 || fMax <= fMin) throw new RangeError("invalid mel filter bank options");
  const nBins = Math.floor(nFft / 2) + 1;
  const fftFreqs = new Float64Array(nBins);
  for (let k = 0; k < nBins; k++) fftFreqs[k] = (k * sampleRate) / nFft;
  const melMin = hzToMel(fMin, scale);
  const melMax = hzToMel(fMax, scale);
  const melF = new Float64Array(nMels + 2);
  for (let i = 0; i < nMels + 2; i++) melF[i] = melToHz(melMin + ((melMax - melMin) * i) / (nMels + 1), scale);
  const weights = new Float32Array(nMels * nBins);
  for (let m = 0; m < nMels; m++) {
    const lowerWidth = melF[m + 1] - melF[m];
    const upperWidth = melF[m + 2] - melF[m + 1];
    const enorm = norm === "slaney" ? 2 / (melF[m + 2] - melF[m]) : 1;
    for (let k = 0; k < nBins; k++) {
      const lower = (fftFreqs[k] - melF[m]) / lowerWidth;
      const upper = (melF[m + 2] - fftFreqs[k]) / upperWidth;
      const w = Math.max(0, Math.min(lower, upper));
      // librosa stores the triangle in float32, then scales it in place.
      weights[m * nBins + k] = Math.fround(w) * enorm;
    }
  }
  return weights;
}

/**
 * Applies a filter bank [nMels, nBins] to a power spectrogram [nFrames, nBins]:
 * returns [nMels, nFrames] row-major.
 */
export function applyFilterBank(
  filters: Float32Array, nMels: number, spec: Float64Array, nFrames: number, nBins: number,
): Float64Array {
  if (filters.length !== nMels * nBins) throw new RangeError("filter bank does not match the spectrum size");
  const out = new Float64Array(nMels * nFrames);
  for (let m = 0; m < nMels; m++) {
    const fRow = m * nBins;
    let lo = 0;
    while (lo < nBins && filters[fRow + lo] === 0) lo++;
    let hi = nBins - 1;
    while (hi >= lo && filters[fRow + hi] === 0) hi--;
    for (let t = 0; t < nFrames; t++) {
      const sRow = t * nBins;
      let acc = 0;
      for (let k = lo; k <= hi; k++) acc += filters[fRow + k] * spec[sRow + k];
      out[m * nFrames + t] = acc;
    }
  }
  return out;
}
