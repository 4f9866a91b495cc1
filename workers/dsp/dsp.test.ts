import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { planFft } from "./fft.ts";
import { hzToMel, melFilterBank, melToHz } from "./mel.ts";
import { moonshineLogMel } from "./moonshine-mel.ts";
import { powerSpectrogram, reflectPad } from "./stft.ts";
import { readWavFile } from "./wav.ts";
import { computeWhisperMelFilters, loadWhisperMelFilters, normalizeWaveform, whisperLogMel } from "./whisper-mel.ts";
import { periodicHann } from "./window.ts";

const SHARED = resolve(import.meta.dir, "../../../shared");
const ASSETS = resolve(SHARED, "models/whisper-assets");

function directDft(x: Float64Array): { re: Float64Array; im: Float64Array } {
  const n = x.length;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    for (let t = 0; t < n; t++) {
      re[k] += x[t] * Math.cos((-2 * Math.PI * k * t) / n);
      im[k] += x[t] * Math.sin((-2 * Math.PI * k * t) / n);
    }
  }
  return { re, im };
}

function tone(hz: number, seconds: number, amp = 0.5): Float32Array {
  const out = new Float32Array(Math.round(16000 * seconds));
  for (let i = 0; i < out.length; i++) out[i] = amp * Math.sin((2 * Math.PI * hz * i) / 16000);
  return out;
}

describe("fft", () => {
  for (const n of [1, 2, 7, 12, 400, 512]) {
    test(`matches a direct DFT at n=${n}`, () => {
      const x = new Float64Array(n).map((_, i) => Math.sin(i * 1.3) + 0.25 * Math.cos(i * 0.2) + (i % 3));
      const ref = directDft(x);
      const re = Float64Array.from(x);
      const im = new Float64Array(n);
      planFft(n).forward(re, im);
      for (let k = 0; k < n; k++) {
        expect(Math.abs(re[k] - ref.re[k])).toBeLessThan(1e-9 * n);
        expect(Math.abs(im[k] - ref.im[k])).toBeLessThan(1e-9 * n);
      }
    });
  }
  test("rejects bad sizes and mismatched arrays", () => {
    expect(() => planFft(0)).toThrow(RangeError);
    expect(() => planFft(8).forward(new Float64Array(4), new Float64Array(4))).toThrow(RangeError);
  });
});

describe("stft", () => {
  test("reflect padding follows numpy's reflect mode", () => {
    expect(Array.from(reflectPad(new Float32Array([1, 2, 3, 4]), 2))).toEqual([3, 2, 1, 2, 3, 4, 3, 2]);
    expect(Array.from(reflectPad(new Float32Array([1, 2]), 3))).toEqual([2, 1, 2, 1, 2, 1, 2, 1]);
  });
  test("periodic Hann starts at 0 and peaks at n/2", () => {
    const w = periodicHann(400);
    expect(w[0]).toBe(0);
    expect(w[200]).toBeCloseTo(1, 12);
    expect(w[100]).toBeCloseTo(0.5, 12);
  });
  test("centred frame count is 1 + floor(n / hop) and a tone peaks in its bin", () => {
    const spec = powerSpectrogram(tone(1000, 1), { nFft: 512, hop: 125, window: periodicHann(512) });
    expect(spec.nFrames).toBe(129);
    expect(spec.nBins).toBe(257);
    const row = spec.data.subarray(60 * 257, 61 * 257);
    let best = 0;
    for (let k = 1; k < 257; k++) if (row[k] > row[best]) best = k;
    expect(best).toBe(32); // 1000 Hz * 512 / 16000
  });
  test("empty input gives no frames", () => {
    expect(powerSpectrogram(new Float32Array(0), { nFft: 400, hop: 160, window: periodicHann(400) }).nFrames).toBe(0);
  });
});

describe("mel filters", () => {
  test("slaney and htk scales round-trip", () => {
    for (const hz of [0, 200, 999, 1000, 4000, 8000]) {
      expect(melToHz(hzToMel(hz))).toBeCloseTo(hz, 6);
      expect(melToHz(hzToMel(hz, "htk"), "htk")).toBeCloseTo(hz, 6);
    }
    expect(hzToMel(1000)).toBeCloseTo(15, 12);
  });
  for (const nMels of [80, 128] as const) {
    test(`computed ${nMels}-band filters equal whisper's mel_${nMels}.f32`, () => {
      const shipped = loadWhisperMelFilters(ASSETS, nMels);
      const computed = computeWhisperMelFilters(nMels);
      expect(computed.length).toBe(nMels * 201);
      let maxDiff = 0;
      for (let i = 0; i < shipped.length; i++) maxDiff = Math.max(maxDiff, Math.abs(shipped[i] - computed[i]));
      expect(maxDiff).toBeLessThan(1e-6);
    });
  }
  test("unnormalised triangles peak at 1", () => {
    const fb = melFilterBank({ sampleRate: 16000, nFft: 512, nMels: 10, norm: null, scale: "htk" });
    for (let m = 0; m < 10; m++) {
      const row = fb.subarray(m * 257, (m + 1) * 257);
      const peak = Math.max(...row);
      expect(peak).toBeGreaterThan(0.5);
      expect(peak).toBeLessThanOrEqual(1);
    }
  });
});

describe("whisperLogMel", () => {
  test("frame count is samples / 160 and padToSamples gives 3000 frames for 30 s", () => {
    expect(whisperLogMel(tone(440, 2), 80).nFrames).toBe(200);
    const padded = whisperLogMel(tone(440, 2), 128, { padToSamples: 480000 });
    expect(padded.nFrames).toBe(3000);
    expect(padded.data.length).toBe(128 * 3000);
    expect(whisperLogMel(tone(440, 40), 80, { padToSamples: 480000 }).nFrames).toBe(3000);
  });

  test("a 1 kHz tone puts most energy in the band centred nearest 1 kHz, within whisper's range", () => {
    const { data, nFrames } = whisperLogMel(tone(1000, 2), 80);
    const filters = computeWhisperMelFilters(80);
    let expectedBand = 0;
    let bestDist = Infinity;
    for (let m = 0; m < 80; m++) {
      const row = filters.subarray(m * 201, (m + 1) * 201);
      const centreHz = (row.indexOf(Math.max(...row)) * 16000) / 400;
      if (Math.abs(centreHz - 1000) < bestDist) [bestDist, expectedBand] = [Math.abs(centreHz - 1000), m];
    }
    const t = 100;
    let best = 0;
    for (let m = 0; m < 80; m++) if (data[m * nFrames + t] > data[best * nFrames + t]) best = m;
    expect(best).toBe(expectedBand);
    let max = -Infinity, min = Infinity;
    for (const v of data) [max, min] = [Math.max(max, v), Math.min(min, v)];
    expect(min).toBeCloseTo(max - 2, 5); // floor at max - 8 in log10, scaled by 1/4
  });

  test("equals a direct-DFT reference on real speech", () => {
    const speech = readWavFile(resolve(SHARED, "audio/jfk.wav")).samples.subarray(8000, 16000);
    const filters = loadWhisperMelFilters(ASSETS, 80);
    const { data, nFrames } = whisperLogMel(speech, 80, { filters });
    expect(nFrames).toBe(50);
    const padded = reflectPad(speech, 200);
    const win = periodicHann(400);
    const log = new Float64Array(80 * nFrames);
    for (let t = 0; t < nFrames; t++) {
      const frame = padded.slice(t * 160, t * 160 + 400).map((v, i) => v * win[i]);
      const { re, im } = directDft(frame);
      for (let m = 0; m < 80; m++) {
        let acc = 0;
        for (let k = 0; k < 201; k++) acc += filters[m * 201 + k] * (re[k] ** 2 + im[k] ** 2);
        log[m * nFrames + t] = Math.log10(Math.max(acc, 1e-10));
      }
    }
    const floor = Math.max(...log) - 8;
    let maxDiff = 0;
    for (let i = 0; i < log.length; i++) maxDiff = Math.max(maxDiff, Math.abs((Math.max(log[i], floor) + 4) / 4 - data[i]));
    expect(maxDiff).toBeLessThan(1e-5);
  });

  test("30-s padding: the frames after the audio (not computed) equal those of the audio padded by hand", () => {
    const speech = readWavFile(resolve(SHARED, "audio/jfk.wav")).samples.subarray(0, 40_123);
    const filters = loadWhisperMelFilters(ASSETS, 80);
    const fast = whisperLogMel(speech, 80, { filters, padToSamples: 480000 });
    const byHand = new Float32Array(480000);
    byHand.set(speech);
    const full = whisperLogMel(byHand, 80, { filters });
    expect(fast.nFrames).toBe(3000);
    let maxDiff = 0;
    for (let i = 0; i < full.data.length; i++) maxDiff = Math.max(maxDiff, Math.abs(full.data[i] - fast.data[i]));
    expect(maxDiff).toBeLessThan(1e-6);
    // Digital silence alone: every frame is log10(1e-10), i.e. (−10 + 4) / 4.
    expect(new Set(whisperLogMel(new Float32Array(0), 80, { padToSamples: 480000 }).data)).toEqual(new Set([-1.5]));
  });

  test("faster-whisper's tail: the audio (and 160 zero samples) normalised alone, then zero features", () => {
    const speech = readWavFile(resolve(SHARED, "audio/jfk.wav")).samples.subarray(0, 40_123);
    const filters = loadWhisperMelFilters(ASSETS, 80);
    const padded = whisperLogMel(speech, 80, { filters, padToSamples: 480000, tail: "features" });
    const withHop = new Float32Array(speech.length + 160);
    withHop.set(speech);
    const own = whisperLogMel(withHop, 80, { filters });
    expect(own.nFrames).toBe(Math.floor(40_123 / 160) + 1);
    for (let m = 0; m < 80; m += 7) {
      for (let t = 0; t < own.nFrames; t++) expect(padded.data[m * 3000 + t]).toBeCloseTo(own.data[m * own.nFrames + t], 6);
      for (let t = own.nFrames; t < 3000; t += 97) expect(padded.data[m * 3000 + t]).toBe(0);
    }
  });

  test("rejects unsupported band counts and a filter bank of the wrong size", () => {
    expect(() => whisperLogMel(tone(440, 1), 64 as 80)).toThrow(RangeError);
    expect(() => whisperLogMel(tone(440, 1), 80, { filters: new Float32Array(10) })).toThrow(RangeError);
    expect(() => loadWhisperMelFilters("/nonexistent", 80)).toThrow();
  });
});

describe("moonshineLogMel", () => {
  test("gives a standardised 64x128 plane", () => {
    const speech = readWavFile(resolve(SHARED, "audio/spelling/a.wav")).samples;
    const out = moonshineLogMel(speech);
    expect(out.length).toBe(64 * 128);
    let sum = 0;
    for (const v of out) sum += v;
    const mean = sum / out.length;
    let sq = 0;
    for (const v of out) sq += (v - mean) ** 2;
    expect(Math.abs(mean)).toBeLessThan(1e-5);
    expect(Math.sqrt(sq / (out.length - 1))).toBeCloseTo(1, 4);
  });
  test("crops to the first second and treats silence without dividing by zero", () => {
    const long = tone(700, 2.5);
    expect(moonshineLogMel(long)).toEqual(moonshineLogMel(long.subarray(0, 16000)));
    const silent = moonshineLogMel(new Float32Array(8000));
    expect(silent.every((v) => Math.abs(v) < 1e-9)).toBe(true);
    expect(moonshineLogMel(new Float32Array(0)).length).toBe(64 * 128);
  });
});

describe("wav reader", () => {
  test("reads 16-bit mono clips and refuses non-WAV bytes", () => {
    const wav = readWavFile(resolve(SHARED, "audio/spelling/zero.wav"));
    expect(wav.sampleRate).toBe(16000);
    expect(wav.channels).toBe(1);
    expect(wav.samples.length).toBeGreaterThan(1000);
    expect(() => readWavFile(resolve(SHARED, "models/README.md"))).toThrow(/RIFF/);
  });
});

describe("whisper waveform normalisation (Hugging Face do_normalize)", () => {
  test("zero mean, unit variance, applied before the spectrogram only when asked", () => {
    const x = Float32Array.from({ length: 16000 }, (_, i) => 0.3 + 0.1 * Math.sin(i / 7));
    const n = normalizeWaveform(x);
    const mean = n.reduce((a, b) => a + b, 0) / n.length;
    const variance = n.reduce((a, b) => a + (b - mean) ** 2, 0) / n.length;
    expect(Math.abs(mean)).toBeLessThan(1e-5);
    expect(variance).toBeCloseTo(1, 4);
    expect(whisperLogMel(x, 80, { normalize: true }).data).toEqual(whisperLogMel(n, 80).data);
    expect(whisperLogMel(x, 80, { normalize: true }).data).not.toEqual(whisperLogMel(x, 80).data);
    expect(normalizeWaveform(new Float32Array(4))).toEqual(new Float32Array(4)); // silence stays silence
  });
});
