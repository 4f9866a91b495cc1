/**
 * Short-time Fourier transform to a power spectrogram: framing, windowing, optional centring
 * with reflect padding (numpy/torch `pad_mode="reflect"`), |X|^2 of the one-sided spectrum.
 */
import { planFft, type FftPlan } from "./fft.ts";

export interface StftOptions {
  nFft: number;
  hop: number;
  /** Window of length nFft. */
  window: Float64Array;
  /** Pad nFft/2 on both sides so frame t is centred on sample t·hop (default true). */
  center?: boolean;
}

/** Power spectrogram, row-major [nFrames, nBins] with nBins = nFft/2 + 1. */
export interface PowerSpectrogram {
  data: Float64Array;
  nFrames: number;
  nBins: number;
}

/** Index into a signal of length n extended by reflection (no edge repeat), any distance out. */
function reflectIndex(i: number, n: number): number {
  if (n === 1) return 0;
  const period = 2 * (n - 1);
  let j = i % period;
  if (j < 0) j += period;
  return j < n ? j : period - j;
}

/** Pads `samples` by `pad` on both sides with reflect padding. */
export function reflectPad(samples: Float32Array | Float64Array, pad: number): Float64Array {
  const n = samples.length;
  if (n === 0) throw new RangeError("cannot reflect-pad an empty signal");
  const out = new Float64Array(n + 2 * pad);
  for (let i = 0; i < out.length; i++) out[i] = samples[reflectIndex(i - pad, n)];
  return out;
}

const plans = new Map<number, FftPlan>();
function cachedPlan(n: number): FftPlan {
  let plan = plans.get(n);
  if (!plan) {
    plan = planFft(n);
    plans.set(n, plan);
  }
  return plan;
}

/** Computes the power spectrogram of `samples`. An empty signal gives zero frames. */
export function powerSpectrogram(samples: Float32Array | Float64Array, opts: StftOptions): PowerSpectrogram {
  const { nFft, hop, window } = opts;
  const center = opts.center ?? true;
  if (window.length !== nFft) throw new RangeError(`window length ${window.length} != nFft ${nFft}`);
  if (!Number.isInteger(hop) || hop < 1) throw new RangeError(`hop must be a positive integer, got ${hop}`);
  const nBins = Math.floor(nFft / 2) + 1;
  if (samples.length === 0) return { data: new Float64Array(0), nFrames: 0, nBins };
  const signal = center ? reflectPad(samples, Math.floor(nFft / 2)) : Float64Array.from(samples);
  const nFrames = signal.length < nFft ? 0 : 1 + Math.floor((signal.length - nFft) / hop);
  const data = new Float64Array(nFrames * nBins);
  const plan = cachedPlan(nFft);
  const re = new Float64Array(nFft);
  const im = new Float64Array(nFft);
  for (let t = 0; t < nFrames; t++) {
    const start = t * hop;
    for (let i = 0; i < nFft; i++) re[i] = signal[start + i] * window[i];
    im.fill(0);
    plan.forward(re, im);
    const row = t * nBins;
    for (let k = 0; k < nBins; k++) data[row + k] = re[k] * re[k] + im[k] * im[k];
  }
  return { data, nFrames, nBins };
}
