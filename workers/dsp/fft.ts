/**
 * Mixed-radix complex FFT for any length (factors 2, 3, 4, 5 and, for other primes, a direct
 * DFT of that factor). Whisper's n_fft of 400 (= 2^4 · 5^2) is not a power of two, so a
 * power-of-two-only FFT would not do. Computation is in float64.
 */

/** A planned forward FFT of one fixed length. */
export interface FftPlan {
  readonly size: number;
  /** Forward transform, in place: `re`/`im` hold the input and receive X[k] = Σ x[n]·e^{-2πikn/N}. */
  forward(re: Float64Array, im: Float64Array): void;
}

function factorise(n: number): number[] {
  const factors: number[] = [];
  let rest = n;
  for (const p of [4, 2, 3, 5]) {
    while (rest % p === 0) {
      factors.push(p);
      rest /= p;
    }
  }
  for (let p = 7; rest > 1; p += 2) {
    while (rest % p === 0) {
      factors.push(p);
      rest /= p;
    }
    if (p * p > rest && rest > 1) {
      factors.push(rest);
      rest = 1;
    }
  }
  return factors;
}

/** Plans a forward FFT of length `n` (a positive integer). */
export function planFft(n: number): FftPlan {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`FFT size must be a positive integer, got ${n}`);
  const factors = factorise(n);
  const twRe = new Float64Array(n);
  const twIm = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    twRe[t] = Math.cos((-2 * Math.PI * t) / n);
    twIm[t] = Math.sin((-2 * Math.PI * t) / n);
  }
  const workRe = new Float64Array(n);
  const workIm = new Float64Array(n);
  const maxP = Math.max(1, ...factors);
  const tRe = new Float64Array(maxP);
  const tIm = new Float64Array(maxP);

  /**
   * DFT of the `len` inputs at inOff, inOff+stride, … into out[outOff .. outOff+len), using
   * decimation in time over factors[fi..]. Twiddles W_len^t are W_n^{t·n/len}.
   */
  function rec(
    inRe: Float64Array, inIm: Float64Array, inOff: number, stride: number,
    outRe: Float64Array, outIm: Float64Array, outOff: number, len: number, fi: number,
  ): void {
    if (len === 1) {
      outRe[outOff] = inRe[inOff];
      outIm[outOff] = inIm[inOff];
      return;
    }
    const p = factors[fi];
    const m = len / p;
    for (let r = 0; r < p; r++) {
      rec(inRe, inIm, inOff + r * stride, stride * p, outRe, outIm, outOff + r * m, m, fi + 1);
    }
    const step = n / len; // W_len^t = tw[t * step]
    const pStep = n / p; // W_p^t = tw[t * pStep]
    for (let k = 0; k < m; k++) {
      for (let r = 0; r < p; r++) {
        const yr = outRe[outOff + r * m + k];
        const yi = outIm[outOff + r * m + k];
        const ti = ((r * k) % len) * step;
        const wr = twRe[ti];
        const wi = twIm[ti];
        tRe[r] = yr * wr - yi * wi;
        tIm[r] = yr * wi + yi * wr;
      }
      if (p === 2) {
        outRe[outOff + k] = tRe[0] + tRe[1];
        outIm[outOff + k] = tIm[0] + tIm[1];
        outRe[outOff + k + m] = tRe[0] - tRe[1];
        outIm[outOff + k + m] = tIm[0] - tIm[1];
        continue;
      }
      if (p === 4) {
        // W_4 = -i: the butterfly needs no multiplications.
        const aRe = tRe[0] + tRe[2], aIm = tIm[0] + tIm[2];
        const bRe = tRe[0] - tRe[2], bIm = tIm[0] - tIm[2];
        const cRe = tRe[1] + tRe[3], cIm = tIm[1] + tIm[3];
        const dRe = tRe[1] - tRe[3], dIm = tIm[1] - tIm[3];
        outRe[outOff + k] = aRe + cRe;
        outIm[outOff + k] = aIm + cIm;
        outRe[outOff + k + m] = bRe + dIm;
        outIm[outOff + k + m] = bIm - dRe;
        outRe[outOff + k + 2 * m] = aRe - cRe;
        outIm[outOff + k + 2 * m] = aIm - cIm;
        outRe[outOff + k + 3 * m] = bRe - dIm;
        outIm[outOff + k + 3 * m] = bIm + dRe;
        continue;
      }
      for (let q = 0; q < p; q++) {
        let sr = 0;
        let si = 0;
        for (let r = 0; r < p; r++) {
          const wi2 = ((r * q) % p) * pStep;
          const wr = twRe[wi2];
          const wi = twIm[wi2];
          sr += tRe[r] * wr - tIm[r] * wi;
          si += tRe[r] * wi + tIm[r] * wr;
        }
        outRe[outOff + k + m * q] = sr;
        outIm[outOff + k + m * q] = si;
      }
    }
  }

  return {
    size: n,
    forward(re: Float64Array, im: Float64Array): void {
      if (re.length !== n || im.length !== n) {
        throw new RangeError(`FFT of size ${n} given arrays of length ${re.length}/${im.length}`);
      }
      workRe.set(re);
      workIm.set(im);
      rec(workRe, workIm, 0, 1, re, im, 0, n, 0);
    },
  };
}
