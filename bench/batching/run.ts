/**
 * What batching the recognizer's work across sessions would gain on this CPU, per model: the
 * engine's own ONNX files and session options (one intra-op thread, as each engine thread runs),
 * timed bare.
 *
 * - **Encoder:** one call on a batch of b 30-s windows against b calls of one window.
 * - **Decoder step:** one step of a beam search is a batch of 5 rows sharing one window's
 *   cross-attention cache (broadcast from one row). Batching k sessions' steps is one step of 5k
 *   rows, each session's rows with its own window's cache (repeated rows: the cross-attention
 *   caches differ between sessions). Timed against k steps of 5 rows, at the same past length:
 *   the exported decoder takes no attention mask and derives positions from the cache's length, so
 *   only rows at the same length can share a call at all.
 *
 * Also timed: one row's step (a greedy step) against the beam's, and the beam's step on two
 * intra-op threads (what a lone decode's wider session would give the decoder).
 *
 * `bun bench/batching/run.ts [--models whisper-tiny.en,whisper-base] [--reps 20]`; prints a table
 * and writes bench/results/batching.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import * as ort from "onnxruntime-node";
import { loadWhisperConfig } from "../../workers/engines/whisper/config.ts";
import { WhisperEncoder } from "../../workers/engines/whisper/encoder.ts";

const ROOT = resolve(import.meta.dir, "../..");
const { values: args } = parseArgs({
  options: { models: { type: "string", default: "whisper-tiny.en,whisper-base" }, reps: { type: "string", default: "20" } },
});
const MODELS = args.models.split(",");
const REPS = Number(args.reps);
const BEAM = 5;
const SESSIONS = [1, 2, 4];
const ENCODER_BATCH = [1, 2];
const PAST = 40;

const options: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: "all" };

/** Median wall time (ms) of `reps` runs of `f`, after one warm-up run. */
async function median(reps: number, f: () => Promise<unknown>): Promise<number> {
  await f();
  const ts: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await f();
    ts.push(performance.now() - t);
  }
  return ts.sort((a, b) => a - b)[Math.floor(ts.length / 2)]!;
}

function random(dims: number[], scale = 1): ort.Tensor {
  const n = dims.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = (Math.random() * 2 - 1) * scale;
  return new ort.Tensor("float32", data, dims);
}

/** `t` with each row repeated `each` times in place. */
function repeatRows(t: ort.Tensor, each: number): ort.Tensor {
  const data = t.data as Float32Array;
  const rows = t.dims[0]!;
  const size = data.length / rows;
  const out = new Float32Array(size * rows * each);
  for (let r = 0; r < rows; r++) for (let e = 0; e < each; e++) out.set(data.subarray(r * size, (r + 1) * size), (r * each + e) * size);
  return new ort.Tensor("float32", out, [rows * each, ...t.dims.slice(1)]);
}

interface ModelResult {
  model: string;
  encoder: { batch: number; ms: number; msPerWindow: number; vsSeparate: number }[];
  decoderStep: { sessions: number; rows: number; batchedMs: number; separateMs: number; vsSeparate: number }[];
  /** One row's step (broadcast cache), ms. */
  oneRowMs: number;
  /** The 5-row step on two intra-op threads, ms. */
  twoThreadsMs: number;
}

async function measure(model: string): Promise<ModelResult> {
  const dir = join(ROOT, "models", model);
  const cfg = loadWhisperConfig(dir, { quantized: "signed-encoder" });
  const encoder = await WhisperEncoder.load(cfg.encoderPath, options);
  const decoder = await ort.InferenceSession.create(cfg.decoderPath, options);
  const enc: ModelResult["encoder"] = [];
  let one = 0;
  for (const b of ENCODER_BATCH) {
    const mel = random([b, cfg.nMels, 3000]);
    const ms = await median(Math.max(3, Math.floor(REPS / 4)), () => encoder.run(mel));
    if (b === 1) one = ms;
    enc.push({ batch: b, ms, msPerWindow: ms / b, vsSeparate: ms / (b * one) });
  }

  // Each session's cross-attention cache: the first decoder call on its own (random) encoder output.
  const frames = 1500;
  const maxSessions = Math.max(...SESSIONS);
  const hidden = random([maxSessions, frames, cfg.dModel]);
  const emptySelf = new ort.Tensor("float32", new Float32Array(0), [maxSessions, cfg.decoderHeads, 0, cfg.headDim]);
  const feeds: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor("int64", new BigInt64Array(maxSessions).fill(50257n), [maxSessions, 1]),
    encoder_hidden_states: hidden,
    use_cache_branch: new ort.Tensor("bool", new Uint8Array([0]), [1]),
  };
  for (let i = 0; i < cfg.decoderLayers; i++) {
    for (const kv of ["key", "value"]) {
      feeds[`past_key_values.${i}.decoder.${kv}`] = emptySelf;
      feeds[`past_key_values.${i}.encoder.${kv}`] = emptySelf;
    }
  }
  const first = await decoder.run(feeds);
  const cross = (name: string) => first[name.replace("past_key_values", "present")]!;

  const cacheBranch = new ort.Tensor("bool", new Uint8Array([1]), [1]);
  const stepFeeds = (sessions: number, broadcast: boolean, beam = BEAM): Record<string, ort.Tensor> => {
    const rows = sessions * beam;
    const f: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor("int64", new BigInt64Array(rows).fill(262n), [rows, 1]),
      use_cache_branch: cacheBranch,
      encoder_hidden_states: broadcast ? firstRows(hidden, 1) : repeatRows(firstRows(hidden, sessions), beam),
    };
    for (let i = 0; i < cfg.decoderLayers; i++) {
      for (const kv of ["key", "value"]) {
        f[`past_key_values.${i}.decoder.${kv}`] = random([rows, cfg.decoderHeads, PAST, cfg.headDim], 0.5);
        const c = cross(`past_key_values.${i}.encoder.${kv}`);
        f[`past_key_values.${i}.encoder.${kv}`] = broadcast ? firstRows(c, 1) : repeatRows(firstRows(c, sessions), beam);
      }
    }
    return f;
  };
  const dec: ModelResult["decoderStep"] = [];
  const single = stepFeeds(1, true);
  const separate = await median(REPS, () => decoder.run(single));
  for (const s of SESSIONS) {
    const batchFeeds = s === 1 ? null : stepFeeds(s, false);
    const batched = batchFeeds ? await median(REPS, () => decoder.run(batchFeeds)) : separate;
    dec.push({ sessions: s, rows: s * BEAM, batchedMs: batched, separateMs: s * separate, vsSeparate: batched / (s * separate) });
  }
  // What a step's cost is made of: one row (a greedy step) against the beam's five; and the beam's
  // step on two threads that do not spin, as the engine's wider encoder session for a lone decode.
  const oneRow = stepFeeds(1, true, 1);
  const oneRowMs = await median(REPS, () => decoder.run(oneRow));
  const wide = await ort.InferenceSession.create(cfg.decoderPath, { ...options, intraOpNumThreads: 2, extra: { session: { intra_op: { allow_spinning: "0" } } } });
  const twoThreadsMs = await median(REPS, () => wide.run(single));
  await Promise.all([encoder.release(), decoder.release(), wide.release()]);
  return { model, encoder: enc, decoderStep: dec, oneRowMs, twoThreadsMs };
}

function firstRows(t: ort.Tensor, n: number): ort.Tensor {
  const data = t.data as Float32Array;
  const size = data.length / t.dims[0]!;
  return new ort.Tensor("float32", data.subarray(0, n * size), [n, ...t.dims.slice(1)]);
}

const results: ModelResult[] = [];
for (const m of MODELS) results.push(await measure(m));
const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
console.log("| model | encoder: batch 2 ÷ 2 calls | decoder step, 2 sessions: 10 rows ÷ 2 × 5 rows | 4 sessions: 20 rows ÷ 4 × 5 rows | one 5-row step, one 30-s window | 1-row step | 5-row step on 2 threads |");
console.log("|---|---|---|---|---|---|---|");
for (const r of results) {
  const e = r.encoder.find((x) => x.batch === 2)!;
  const d = (s: number) => r.decoderStep.find((x) => x.sessions === s)!;
  console.log(`| ${r.model} | ${f2(e.vsSeparate)} (${f1(e.ms)} vs ${f1(2 * r.encoder[0]!.ms)} ms) | ${f2(d(2).vsSeparate)} (${f2(d(2).batchedMs)} vs ${f2(d(2).separateMs)} ms) | ${f2(d(4).vsSeparate)} (${f2(d(4).batchedMs)} vs ${f2(d(4).separateMs)} ms) | ${f2(d(1).batchedMs)} ms, encoder ${f1(r.encoder[0]!.ms)} ms | ${f2(r.oneRowMs)} ms | ${f2(r.twoThreadsMs)} ms |`);
}
mkdirSync(join(ROOT, "bench/results"), { recursive: true });
writeFileSync(join(ROOT, "bench/results/batching.json"), JSON.stringify({ reps: REPS, beam: BEAM, past: PAST, results }, null, 2));
