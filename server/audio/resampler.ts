/**
 * Streaming sample-rate conversion of one mono channel, backed by libsamplerate (compiled to wasm).
 *
 * Output sample n corresponds to time n / toRate from the first input sample: libsamplerate
 * compensates its filter delay by holding output back until enough input has arrived, and
 * `flush()` drains that tail at the end of the stream.
 */

import type { ConverterType as ConverterTypes } from "@alexanderolsen/libsamplerate-js";
import { concatSamples } from "./samples.ts";

export type ResamplerQuality = "fastest" | "medium" | "best";

export interface Resampler {
  readonly fromRate: number;
  readonly toRate: number;
  /** Converts the next piece of the stream; may return fewer samples than ratio × input. */
  push(samples: Float32Array): Float32Array;
  /** End of stream: returns the held-back tail so the total output is round(input × ratio). */
  flush(): Float32Array;
  /** Input samples consumed so far. */
  readonly samplesIn: number;
  /** Output samples produced so far. */
  readonly samplesOut: number;
  /** Frees the converter; the resampler cannot be used afterwards. */
  close(): void;
}

const QUALITY: Record<ResamplerQuality, keyof typeof ConverterTypes> = {
  fastest: "SRC_SINC_FASTEST",
  medium: "SRC_SINC_MEDIUM_QUALITY",
  best: "SRC_SINC_BEST_QUALITY",
};

const MAX_RATE = 192000;

function passthrough(rate: number): Resampler {
  let count = 0;
  return {
    fromRate: rate,
    toRate: rate,
    push(samples) {
      count += samples.length;
      return samples;
    },
    flush: () => new Float32Array(0),
    get samplesIn() {
      return count;
    },
    get samplesOut() {
      return count;
    },
    close() {},
  };
}

/**
 * Creates a streaming resampler from `fromRate` to `toRate` Hz (identity passthrough when they
 * are equal). Throws a RangeError for rates outside 1..192000.
 */
export async function createResampler(
  fromRate: number,
  toRate: number,
  quality: ResamplerQuality = "medium",
): Promise<Resampler> {
  for (const rate of [fromRate, toRate]) {
    if (!Number.isInteger(rate) || rate < 1 || rate > MAX_RATE) {
      throw new RangeError(`unsupported sample rate ${rate}`);
    }
  }
  if (fromRate === toRate) return passthrough(fromRate);
  // The wasm converter loads with the first session that needs it, not with the service.
  const { ConverterType, create } = await import("@alexanderolsen/libsamplerate-js");
  const src = await create(1, fromRate, toRate, { converterType: ConverterType[QUALITY[quality]] });
  const ratio = toRate / fromRate;
  let samplesIn = 0;
  let samplesOut = 0;
  let closed = false;

  const run = (samples: Float32Array): Float32Array => {
    if (closed) throw new Error("resampler is closed");
    if (samples.length === 0) return new Float32Array(0);
    const out = src.full(samples);
    samplesOut += out.length;
    return out;
  };

  return {
    fromRate,
    toRate,
    push(samples) {
      samplesIn += samples.length;
      return run(samples);
    },
    flush() {
      const target = Math.round(samplesIn * ratio);
      const parts: Float32Array[] = [];
      // Feed silence until the filter has released every sample that belongs to the input.
      const pad = new Float32Array(Math.max(256, Math.ceil(fromRate / 50)));
      for (let i = 0; i < 50 && samplesOut < target; i++) parts.push(run(pad));
      const tail = concatSamples(parts.length ? parts : [new Float32Array(0)]);
      const cut = Math.min(Math.max(0, samplesOut - target), tail.length);
      samplesOut -= cut;
      return tail.subarray(0, tail.length - cut);
    },
    get samplesIn() {
      return samplesIn;
    },
    get samplesOut() {
      return samplesOut;
    },
    close() {
      if (!closed) src.destroy();
      closed = true;
    },
  };
}
