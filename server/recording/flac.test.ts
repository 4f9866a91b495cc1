import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFlacRecorder, FlacRecorderError, type InputBitsPerSample } from "./flac.ts";

// Decoding uses the reference `flac`/`metaflac` tools (Debian package `flac`).
const FLAC = Bun.which("flac");
const METAFLAC = Bun.which("metaflac");
if (!FLAC || !METAFLAC) throw new Error("the `flac` package (flac, metaflac) is required for these tests");

const dir = mkdtempSync(join(tmpdir(), "flac-rec-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(cmd: string[]): string {
  const result = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed: ${result.stderr.toString()}`);
  return result.stdout.toString();
}

/** Decodes a FLAC file to interleaved signed samples with the reference decoder. */
function decode(path: string, bits: number): Int32Array {
  const raw = `${path}.raw`;
  run([FLAC!, "-d", "-s", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", raw, path]);
  const bytes = readFileSync(raw);
  const width = bits / 8;
  const out = new Int32Array(bytes.length / width);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readIntLE(i * width, width);
  return out;
}

function streamInfo(path: string) {
  const [rate, channels, bps, total] = run([METAFLAC!, "--show-sample-rate", "--show-channels", "--show-bps", "--show-total-samples", path])
    .trim()
    .split("\n")
    .map(Number);
  return { rate, channels, bps, total };
}

/** Interleaved sine (different frequency per channel) at full scale of `bits`, with a little noise. */
function sine(frames: number, channels: number, rate: number, bits: number): Int32Array {
  const amp = 2 ** (bits - 1) - 1;
  const out = new Int32Array(frames * channels);
  let seed = 12345;
  for (let i = 0; i < frames; i++) {
    for (let ch = 0; ch < channels; ch++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const noise = (seed >>> 16) % 3 - 1;
      const v = Math.round(0.9 * amp * Math.sin((2 * Math.PI * (440 * (ch + 1)) * i) / rate)) + noise;
      out[i * channels + ch] = Math.max(-amp - 1, Math.min(amp, v));
    }
  }
  return out;
}

const cases: Array<{ rate: number; channels: number; bits: InputBitsPerSample }> = [
  { rate: 8000, channels: 1, bits: 16 },
  { rate: 48000, channels: 2, bits: 16 },
  { rate: 8000, channels: 2, bits: 24 },
  { rate: 48000, channels: 1, bits: 24 },
  { rate: 16000, channels: 1, bits: 8 },
];

describe("FLAC recorder", () => {
  for (const { rate, channels, bits } of cases) {
    test(`lossless round trip: ${rate} Hz, ${channels} ch, ${bits}-bit`, async () => {
      const frames = Math.round(rate * 0.7) + 17;
      const samples = sine(frames, channels, rate, bits);
      const path = join(dir, `sine-${rate}-${channels}-${bits}.flac`);
      const recorder = createFlacRecorder({ path, sampleRate: rate, channels, bitsPerSample: bits, blockFrames: 1000 });
      // Incremental writes of uneven sizes.
      let at = 0;
      for (const size of [1, 333, 4097, 50, frames]) {
        const end = Math.min(frames, at + size);
        if (end > at) await recorder.write(samples.slice(at * channels, end * channels));
        at = end;
      }
      expect(existsSync(`${path}.partial`)).toBe(true);
      expect(existsSync(path)).toBe(false);
      const result = await recorder.finish();
      expect(existsSync(`${path}.partial`)).toBe(false);
      expect(result.path).toBe(path);
      expect(result.totalSamples).toBe(frames);
      expect(result.durationS).toBeCloseTo(frames / rate, 9);
      expect(result.bytes).toBe(readFileSync(path).length);
      expect(streamInfo(path)).toEqual({ rate, channels, bps: bits, total: frames });
      run([FLAC!, "-t", "-s", path]); // integrity, MD5 included
      const decoded = decode(path, bits);
      expect(decoded.length).toBe(samples.length);
      expect(Buffer.from(decoded.buffer).equals(Buffer.from(samples.buffer))).toBe(true);
    });
  }

  test("32-bit input is stored as 24-bit (low 8 bits dropped)", async () => {
    const frames = 5000;
    const samples = sine(frames, 2, 16000, 32);
    const path = join(dir, "in32.flac");
    const recorder = createFlacRecorder({ path, sampleRate: 16000, channels: 2, bitsPerSample: 32 });
    expect(recorder.storedBitsPerSample).toBe(24);
    await recorder.write(samples);
    const result = await recorder.finish();
    expect(result.storedBitsPerSample).toBe(24);
    expect(streamInfo(path)).toEqual({ rate: 16000, channels: 2, bps: 24, total: frames });
    const decoded = decode(path, 24);
    expect(Array.from(decoded)).toEqual(Array.from(samples, (v) => v >> 8));
  });

  test("per-channel float input is scaled to the stored depth", async () => {
    const left = new Float32Array([0, 0.5, -0.5, 1, -1, 2, Number.NaN]);
    const right = new Float32Array([0.25, -0.25, 0, 0, 0, -2, 0]);
    const path = join(dir, "float.flac");
    const recorder = createFlacRecorder({ path, sampleRate: 8000, channels: 2, bitsPerSample: 16 });
    await recorder.write([left, right]);
    await recorder.finish();
    expect(Array.from(decode(path, 16))).toEqual([0, 8192, 16384, -8192, -16384, 0, 32767, 0, -32768, 0, 32767, -32768, 0, 0]);
  });

  test("bad input is refused with clear errors; abort removes the partial file", async () => {
    expect(() => createFlacRecorder({ path: join(dir, "x.flac"), sampleRate: 16000, channels: 1, bitsPerSample: 12 as never })).toThrow(
      FlacRecorderError,
    );
    expect(() => createFlacRecorder({ path: join(dir, "x.flac"), sampleRate: 0, channels: 1, bitsPerSample: 16 })).toThrow(/sample rate/);
    const path = join(dir, "aborted.flac");
    const recorder = createFlacRecorder({ path, sampleRate: 16000, channels: 2, bitsPerSample: 16 });
    await expect(recorder.write(new Int32Array(3))).rejects.toThrow(/multiple of 2/);
    await expect(recorder.write(new Int32Array([40000, 0]))).rejects.toThrow(/outside the 16-bit range/);
    await expect(recorder.write([new Float32Array(2)])).rejects.toThrow(/2 Float32Array/);
    await recorder.write(new Int32Array([1, 2, 3, 4]));
    expect(existsSync(`${path}.partial`)).toBe(true);
    await recorder.abort();
    expect(existsSync(`${path}.partial`)).toBe(false);
    expect(existsSync(path)).toBe(false);
    await expect(recorder.write(new Int32Array(2))).rejects.toThrow(/aborted/);
    await expect(recorder.finish()).rejects.toThrow(/aborted/);
  });

  test("an unwritable path fails on write, not with a crash", async () => {
    const recorder = createFlacRecorder({ path: join(dir, "missing-dir", "x.flac"), sampleRate: 16000, channels: 1, bitsPerSample: 16 });
    await expect(recorder.write(new Int32Array(10))).rejects.toThrow(/ENOENT|no such file/i);
  });
});
