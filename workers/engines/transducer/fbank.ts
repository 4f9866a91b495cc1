/**
 * Kaldi-style log-mel filter-bank features (as computed by kaldi-native-fbank for sherpa-onnx
 * and lhotse for icefall training): 25 ms Povey windows every 10 ms, DC removal, pre-emphasis
 * 0.97, 512-point power spectrum, triangular filters linear on the 1127·ln(1 + f/700) mel scale,
 * natural log floored at float epsilon. Frames are "snipped" (frame i covers samples
 * [160·i, 160·i + 400)), so features of a growing stream can be computed incrementally.
 */
import { Pow2Fft } from "./fft-pow2.ts";

export interface FbankOptions {
  sampleRate?: number;
  numBins?: number;
  lowFreq?: number;
  /** Upper edge; zero or negative is relative to the Nyquist frequency (default −400). */
  highFreq?: number;
}

const EPS = 1.1920928955078125e-7;

export class Fbank {
  readonly frameLength: number;
  readonly frameShift: number;
  readonly numBins: number;
  private readonly nFft: number;
  private readonly window: Float64Array;
  /** Per bin: first FFT index and weights. */
  private readonly filters: { start: number; weights: Float64Array }[];
  private readonly fft;
  private readonly re: Float64Array;
  private readonly im: Float64Array;

  constructor(opts: FbankOptions = {}) {
    const sr = opts.sampleRate ?? 16000;
    this.numBins = opts.numBins ?? 80;
    this.frameLength = Math.round(sr * 0.025);
    this.frameShift = Math.round(sr * 0.01);
    this.nFft = 2 ** Math.ceil(Math.log2(this.frameLength));
    this.window = new Float64Array(this.frameLength);
    for (let i = 0; i < this.frameLength; i++) {
      this.window[i] = Math.pow(0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (this.frameLength - 1)), 0.85);
    }
    const nyquist = sr / 2;
    const low = opts.lowFreq ?? 20;
    const high = (opts.highFreq ?? -400) <= 0 ? nyquist + (opts.highFreq ?? -400) : opts.highFreq!;
    if (!(low >= 0 && high > low && high <= nyquist)) throw new RangeError(`bad fbank frequency range ${low}..${high}`);
    const mel = (f: number) => 1127 * Math.log(1 + f / 700);
    const melLow = mel(low);
    const delta = (mel(high) - melLow) / (this.numBins + 1);
    const binWidth = sr / this.nFft;
    const half = this.nFft / 2;
    this.filters = [];
    for (let b = 0; b < this.numBins; b++) {
      const left = melLow + b * delta;
      const center = left + delta;
      const right = center + delta;
      const w: number[] = [];
      let start = -1;
      for (let i = 0; i < half; i++) {
        const m = mel(binWidth * i);
        if (m > left && m < right) {
          if (start < 0) start = i;
          w[i - start] = m <= center ? (m - left) / (center - left) : (right - m) / (right - center);
        }
      }
      this.filters.push({ start: Math.max(0, start), weights: Float64Array.from(w, (v) => v ?? 0) });
    }
    this.fft = new Pow2Fft(this.nFft);
    this.re = new Float64Array(this.nFft);
    this.im = new Float64Array(this.nFft);
  }

  /** Number of complete frames in `numSamples` samples. */
  frameCount(numSamples: number): number {
    return numSamples < this.frameLength ? 0 : 1 + Math.floor((numSamples - this.frameLength) / this.frameShift);
  }

  /** Features of frames [from, to) of `samples`, row-major [to − from, numBins]. */
  compute(samples: Float32Array, from = 0, to = this.frameCount(samples.length)): Float32Array {
    if (to > this.frameCount(samples.length) || from < 0 || from > to) throw new RangeError(`frames ${from}..${to} out of range`);
    const out = new Float32Array((to - from) * this.numBins);
    const { re, im, frameLength: L } = this;
    for (let f = from; f < to; f++) {
      const off = f * this.frameShift;
      let mean = 0;
      for (let i = 0; i < L; i++) mean += samples[off + i];
      mean /= L;
      for (let i = 0; i < L; i++) re[i] = samples[off + i] - mean;
      for (let i = L - 1; i > 0; i--) re[i] -= 0.97 * re[i - 1];
      re[0] -= 0.97 * re[0];
      for (let i = 0; i < L; i++) re[i] *= this.window[i];
      re.fill(0, L);
      im.fill(0);
      this.fft.forward(re, im);
      const row = (f - from) * this.numBins;
      for (let b = 0; b < this.numBins; b++) {
        const { start, weights } = this.filters[b];
        let e = 0;
        for (let k = 0; k < weights.length; k++) {
          const j = start + k;
          e += weights[k] * (re[j] * re[j] + im[j] * im[j]);
        }
        out[row + b] = Math.log(Math.max(e, EPS));
      }
    }
    return out;
  }
}
