import { describe, expect, test } from "bun:test";
import { createResampler, type Resampler } from "./resampler.ts";

function sine(rate: number, freq: number, seconds: number, amp = 0.5): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = amp * Math.sin((2 * Math.PI * freq * i) / rate);
  return out;
}

/** Least-squares fit of a·sin + b·cos at `freq` over [from, to): amplitude, phase, residual RMS. */
function fitSine(x: Float32Array, rate: number, freq: number, from: number, to: number) {
  let ss = 0, cc = 0, sc = 0, xs = 0, xc = 0;
  for (let i = from; i < to; i++) {
    const w = (2 * Math.PI * freq * i) / rate;
    const s = Math.sin(w), c = Math.cos(w);
    ss += s * s; cc += c * c; sc += s * c; xs += x[i]! * s; xc += x[i]! * c;
  }
  const det = ss * cc - sc * sc;
  const a = (xs * cc - xc * sc) / det;
  const b = (xc * ss - xs * sc) / det;
  let res = 0;
  for (let i = from; i < to; i++) {
    const w = (2 * Math.PI * freq * i) / rate;
    res += (x[i]! - a * Math.sin(w) - b * Math.cos(w)) ** 2;
  }
  return { amplitude: Math.hypot(a, b), phase: Math.atan2(b, a), rms: Math.sqrt(res / (to - from)) };
}

function streamAll(r: Resampler, x: Float32Array, sizes: number[]): Float32Array {
  const parts: Float32Array[] = [];
  for (let pos = 0, i = 0; pos < x.length; i++) {
    const n = sizes[i % sizes.length]!;
    parts.push(r.push(x.subarray(pos, pos + n)));
    pos += n;
  }
  parts.push(r.flush());
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

describe("resampler", () => {
  for (const [from, freq] of [[8000, 440], [8000, 3000], [44100, 1000], [48000, 440], [48000, 6000]] as const) {
    test(`${from} Hz → 16 kHz keeps a ${freq} Hz sine (frequency, amplitude, timing)`, async () => {
      const r = await createResampler(from, 16000);
      const x = sine(from, freq, 1.0);
      const y = streamAll(r, x, [from / 50]); // 20 ms chunks
      r.close();
      expect(y.length).toBe(16000);
      expect(r.samplesOut).toBe(16000);
      const fit = fitSine(y, 16000, freq, 400, 15600); // skip the edges
      expect(fit.amplitude).toBeGreaterThan(0.49);
      expect(fit.amplitude).toBeLessThan(0.51);
      expect(fit.rms).toBeLessThan(0.005); // 1 % of the amplitude
      // Output is delay-compensated: the sine keeps its phase (|error| < 0.05 rad).
      expect(Math.abs(fit.phase)).toBeLessThan(0.05);
    });
  }

  test("content above the new Nyquist frequency is removed", async () => {
    const r = await createResampler(48000, 16000);
    const y = streamAll(r, sine(48000, 11000, 0.5), [960]);
    r.close();
    let rms = 0;
    for (let i = 400; i < y.length - 400; i++) rms += y[i]! ** 2;
    expect(Math.sqrt(rms / (y.length - 800))).toBeLessThan(0.01);
  });

  test("chunked streaming equals one-shot conversion", async () => {
    const x = sine(44100, 523.25, 0.7, 0.8);
    for (let i = 0; i < x.length; i++) x[i]! += 0.1 * Math.sin(i * 0.37); // a second tone
    const oneShot = await createResampler(44100, 16000);
    const a = streamAll(oneShot, x, [x.length]);
    const chunked = await createResampler(44100, 16000);
    const b = streamAll(chunked, x, [1, 17, 441, 4000, 3]);
    oneShot.close();
    chunked.close();
    expect(b.length).toBe(a.length);
    expect(a.length).toBe(Math.round(x.length * 16000 / 44100));
    let maxDiff = 0;
    for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i]! - b[i]!));
    expect(maxDiff).toBeLessThan(1e-3);
  });

  test("output length tracks input × ratio while streaming", async () => {
    const r = await createResampler(8000, 16000);
    let out = 0;
    for (let i = 0; i < 50; i++) {
      out += r.push(new Float32Array(160)).length;
      // Never ahead of the input; behind only by the filter's look-ahead.
      expect(out).toBeLessThanOrEqual((i + 1) * 320);
      if (i >= 5) expect(out).toBeGreaterThan((i + 1) * 320 - 400);
    }
    out += r.flush().length;
    expect(out).toBe(50 * 320);
    r.close();
    expect(() => r.push(new Float32Array(10))).toThrow(/closed/);
  });

  test("equal rates pass samples through untouched", async () => {
    const r = await createResampler(16000, 16000);
    const x = sine(16000, 440, 0.1);
    expect(r.push(x)).toBe(x);
    expect(r.flush().length).toBe(0);
    expect(r.samplesOut).toBe(x.length);
  });

  test("bad rates are rejected", async () => {
    await expect(createResampler(0, 16000)).rejects.toThrow(/sample rate/);
    await expect(createResampler(16000, 500000)).rejects.toThrow(/sample rate/);
    await expect(createResampler(16000.5, 8000)).rejects.toThrow(/sample rate/);
  });
});
