/**
 * Word times from the model itself: cross-attention alignment, the method of openai-whisper's
 * `timing.py` and faster-whisper's `word_timestamps`. The alignment decoder
 * (`decoder_alignment.onnx`, written by scripts/models/convert_ct2_whisper.py) reads a window's
 * tokens, teacher-forced, with the cross-attention keys and values the merged decoder already
 * projected for that window, and gives the alignment heads' attention over the encoder frames.
 * Each head is standardized per frame over the tokens and median-filtered along time, the heads
 * are averaged, and dynamic time warping finds the monotonic path through tokens × frames: a token
 * starts at the first frame of its row on the path (20 ms per encoder frame).
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import * as ort from "onnxruntime-node";
import { stopIfAborted } from "../../util/abort.ts";
import { ALIGNMENT_FILE } from "./alignment-file.ts";
import type { TokenTimes } from "./word-times.ts";

export { ALIGNMENT_FILE };
/** Seconds per encoder frame (two mel frames of 10 ms). */
export const SECONDS_PER_FRAME = 0.02;
/** Samples per encoder frame at 16 kHz. */
const SAMPLES_PER_FRAME = 320;
/** Width of the median filter along time (openai-whisper's and faster-whisper's `medfilt_width`). */
const MEDIAN_WIDTH = 7;

export class WhisperAligner {
  private constructor(
    private readonly session: ort.InferenceSession,
    /** The merged decoder's cross-attention cache names the alignment decoder reads. */
    private readonly crossNames: string[],
  ) {}

  /** The alignment decoder beside `decoderPath` (or under the model directory), or null when the conversion wrote none. */
  static async load(decoderPath: string, options: ort.InferenceSession.SessionOptions): Promise<WhisperAligner | null> {
    const dir = dirname(decoderPath);
    const path = [join(dir, ALIGNMENT_FILE), join(dirname(dir), ALIGNMENT_FILE)].find((p) => existsSync(p));
    if (!path) return null;
    const session = await ort.InferenceSession.create(path, options);
    return new WhisperAligner(session, session.inputNames.filter((n) => n !== "input_ids"));
  }

  /**
   * Times of `text` (the window's text tokens, timestamps left out) within the window `audio`, given the start-of-transcript sequence ending in
   * `<|notimestamps|>`, the end-of-text token and the window's cross-attention cache.
   * Null when there is no text.
   */
  async tokenTimes(sot: readonly number[], text: readonly number[], eot: number, cross: Record<string, ort.Tensor>, audio: Float32Array, signal?: AbortSignal): Promise<TokenTimes | null> {
    if (text.length === 0) return null;
    const ids = [...sot, ...text, eot];
    const data = new BigInt64Array(ids.length);
    for (let i = 0; i < ids.length; i++) data[i] = BigInt(ids[i]!);
    const feeds: Record<string, ort.Tensor> = { input_ids: new ort.Tensor("int64", data, [1, ids.length]) };
    for (const name of this.crossNames) {
      const t = cross[name];
      if (!t) throw new Error(`alignment decoder needs ${name}, which the decoder's cache lacks`);
      // the cache of one window has one row (see WhisperDecoder.step)
      feeds[name] = t.dims[0] === 1 ? t : new ort.Tensor("float32", (t.data as Float32Array).subarray(0, (t.data as Float32Array).length / t.dims[0]), [1, ...t.dims.slice(1)]);
    }
    await stopIfAborted(signal);
    const out = (await this.session.run(feeds)).alignment_weights!;
    const [heads, tokens, allFrames] = out.dims as [number, number, number];
    const frames = Math.max(1, Math.min(allFrames, Math.ceil(audio.length / SAMPLES_PER_FRAME)));
    const matrix = alignmentMatrix(out.data as Float32Array, heads, tokens, allFrames, frames);
    // Rows from <|notimestamps|> (whose query predicts the first text token) to the last text
    // token (predicting end of text): row k is text token k, and row k + 1 begins where it ends.
    const first = sot.length - 1;
    const rows = text.length + 1;
    const starts = firstColumns(matrix.subarray(first * frames, (first + rows) * frames), rows, frames);
    const start: number[] = [];
    const end: number[] = [];
    for (let k = 0; k < text.length; k++) {
      start.push(starts[k]! * SECONDS_PER_FRAME);
      end.push(starts[k + 1]! * SECONDS_PER_FRAME);
    }
    const times = { start, end };
    skipPauses(times, quietFrames(audio));
    return times;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

/**
 * The heads' weights [heads, tokens, allFrames] cut to `frames`, each head standardized per frame
 * over the tokens and median-filtered along time, then averaged over the heads: [tokens, frames].
 */
export function alignmentMatrix(weights: Float32Array, heads: number, tokens: number, allFrames: number, frames: number): Float32Array {
  const out = new Float32Array(tokens * frames);
  const head = new Float32Array(tokens * frames);
  const row = new Float32Array(frames);
  for (let h = 0; h < heads; h++) {
    const base = h * tokens * allFrames;
    for (let j = 0; j < frames; j++) {
      let mean = 0;
      for (let i = 0; i < tokens; i++) mean += weights[base + i * allFrames + j]!;
      mean /= tokens;
      let variance = 0;
      for (let i = 0; i < tokens; i++) variance += (weights[base + i * allFrames + j]! - mean) ** 2;
      const std = Math.sqrt(variance / tokens) || 1;
      for (let i = 0; i < tokens; i++) head[i * frames + j] = (weights[base + i * allFrames + j]! - mean) / std;
    }
    for (let i = 0; i < tokens; i++) {
      medianFilter(head.subarray(i * frames, (i + 1) * frames), row, MEDIAN_WIDTH);
      for (let j = 0; j < frames; j++) out[i * frames + j]! += row[j]! / heads;
    }
  }
  return out;
}

/** Median of each `width` neighbours (reflected at the ends, as openai-whisper pads) into `out`. */
export function medianFilter(x: Float32Array, out: Float32Array, width: number): void {
  const n = x.length;
  const half = width >> 1;
  const win = new Float32Array(width);
  const at = (k: number) => {
    if (n === 1) return x[0]!;
    let i = k;
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
    return x[i]!;
  };
  for (let j = 0; j < n; j++) {
    for (let k = 0; k < width; k++) win[k] = at(j - half + k);
    win.sort();
    out[j] = win[half]!;
  }
}

/**
 * Dynamic time warping of `matrix` [rows, cols] (higher: more likely aligned) from its first cell
 * to its last, a step moving down, right or both; returns the first column of each row on the
 * path. Ties go diagonal first, then down, as openai-whisper's `dtw_cpu`.
 */
export function firstColumns(matrix: Float32Array, rows: number, cols: number): Int32Array {
  const w = cols + 1;
  const cost = new Float64Array((rows + 1) * w).fill(Infinity);
  const trace = new Uint8Array((rows + 1) * w);
  cost[0] = 0;
  for (let j = 1; j <= cols; j++) {
    for (let i = 1; i <= rows; i++) {
      const c0 = cost[(i - 1) * w + j - 1]!;
      const c1 = cost[(i - 1) * w + j]!;
      const c2 = cost[i * w + j - 1]!;
      let c: number;
      let t: number;
      if (c0 < c1 && c0 < c2) [c, t] = [c0, 0];
      else if (c1 < c0 && c1 < c2) [c, t] = [c1, 1];
      else [c, t] = [c2, 2];
      cost[i * w + j] = c - matrix[(i - 1) * cols + j - 1]!;
      trace[i * w + j] = t;
    }
  }
  const first = new Int32Array(rows);
  let i = rows;
  let j = cols;
  while (i > 0 && j > 0) {
    first[i - 1] = j - 1; // walking back, the last write of a row is its first column
    const t = trace[i * w + j];
    if (t === 0) {
      i--;
      j--;
    } else if (t === 1) i--;
    else j--;
  }
  // a path reaching the first column above row 1 runs down it (openai-whisper's trace[:, 0] = 1)
  while (i > 1) first[--i - 1] = 0;
  return first;
}

/** Quiet frames in a row that make a pause (longer than a stop consonant's closure). */
const PAUSE_FRAMES = 6;

/**
 * Which 20-ms frames of the window `audio` are quiet: an energy less than a 300th of the way (25 dB under the loud frames, over a quiet floor)
 * from the quietest tenth of its frames to its loudest twentieth.
 */
export function quietFrames(audio: Float32Array): Uint8Array {
  const n = Math.floor(audio.length / SAMPLES_PER_FRAME);
  const energy = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let e = 0;
    for (let k = j * SAMPLES_PER_FRAME; k < (j + 1) * SAMPLES_PER_FRAME; k++) e += audio[k]! * audio[k]!;
    energy[j] = e / SAMPLES_PER_FRAME;
  }
  const sorted = Float64Array.from(energy).sort();
  const floor = sorted[Math.floor(n * 0.1)] ?? 0;
  const threshold = floor + ((sorted[Math.min(n - 1, Math.floor(n * 0.95))] ?? 0) - floor) / 300;
  return Uint8Array.from(energy, (e) => (e <= threshold ? 1 : 0));
}

/**
 * Moves each token's start past the last pause (`PAUSE_FRAMES` quiet frames in a row) inside its
 * span, keeping at least two frames: the warping path gives a pause to the token after it (and
 * starts at the window's first frame), where the word has not begun yet. A span that ends in a
 * pause ends where that pause begins: the last word of a window without timestamps (a led decode,
 * `lead.ts`) is given the silence up to the window's end.
 */
export function skipPauses(times: TokenTimes, quiet: Uint8Array): void {
  for (let k = 0; k < times.start.length; k++) {
    const from = Math.round(times.start[k]! / SECONDS_PER_FRAME);
    let end = Math.min(quiet.length, Math.round(times.end[k]! / SECONDS_PER_FRAME));
    let tail = end;
    while (tail > from && quiet[tail - 1]) tail--;
    if (end - tail >= PAUSE_FRAMES && tail - from >= 2) {
      end = tail;
      times.end[k] = end * SECONDS_PER_FRAME;
    }
    const to = end - 2;
    let run = 0;
    let onset = -1;
    for (let j = from; j < to; j++) {
      if (quiet[j]) run++;
      else {
        if (run >= PAUSE_FRAMES) onset = j;
        run = 0;
      }
    }
    if (run >= PAUSE_FRAMES) onset = to;
    if (onset > from) times.start[k] = onset * SECONDS_PER_FRAME;
  }
}
