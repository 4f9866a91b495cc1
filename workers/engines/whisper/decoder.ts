/**
 * Runs a merged Whisper decoder (`decoder_model_merged.onnx`) one step at a time with its
 * key/value cache: the first call passes empty past tensors and `use_cache_branch = false`;
 * later calls feed back the `present.*` outputs with `use_cache_branch = true`.
 */
import * as ort from "onnxruntime-node";

/** What one decoder call looked like (for diagnostics and tests). */
export interface DecoderCallTrace {
  inputIds: number[];
  pastLength: number;
  useCacheBranch: boolean;
}

/**
 * Key/value caches of a batch of hypotheses (one row each): the self-attention caches grow, the
 * cross-attention ones are fixed (and the same for every row of one window).
 */
export interface DecoderCache {
  /** `past_key_values.{i}.decoder.{key,value}` → tensor [batch, heads, past, headDim]. */
  self: Record<string, ort.Tensor>;
  /** `past_key_values.{i}.encoder.{key,value}` → tensor [batch, heads, frames, headDim]. */
  cross: Record<string, ort.Tensor>;
  /** For a decoder that does not broadcast one row over a batch: the cross-attention caches repeated to the most rows seen so far. */
  crossWide?: Record<string, ort.Tensor>;
  length: number;
}

/**
 * The decoder's `use_cache_branch` flags, built once from typed arrays. Passing a plain array
 * (`[true]`) makes onnxruntime's Tensor constructor call `Uint8Array.from` at every step: Bun 1.4.5's
 * optimizing JIT (FTL) aborted the whole process while compiling that constructor once it was hot
 * (`DFG ASSERTION FAILED … lowJSValue`, in a `TypedArray.from` inlined into `Tensor`; seen twice in
 * about thirty benchmark runs, after some 90 s of 16 streams). No tensor here is built from an array.
 */
const CACHE_BRANCH = new ort.Tensor("bool", new Uint8Array([1]), [1]);
const FIRST_BRANCH = new ort.Tensor("bool", new Uint8Array([0]), [1]);

/** Token ids as an int64 tensor (a loop, not `BigInt64Array.from`: see `CACHE_BRANCH`). */
function int64Tensor(ids: readonly number[], dims: number[]): ort.Tensor {
  const data = new BigInt64Array(ids.length);
  for (let i = 0; i < ids.length; i++) data[i] = BigInt(ids[i]!);
  return new ort.Tensor("int64", data, dims);
}

/** Rows of a [batch, …] float tensor, copied into a new tensor in the given order. */
function gatherRows(t: ort.Tensor, rows: readonly number[]): ort.Tensor {
  const data = t.data as Float32Array;
  const rowSize = data.length / t.dims[0];
  const out = new Float32Array(rowSize * rows.length);
  rows.forEach((r, i) => out.set(data.subarray(r * rowSize, (r + 1) * rowSize), i * rowSize));
  return new ort.Tensor("float32", out, [rows.length, ...t.dims.slice(1)]);
}

/** The first `n` rows of each tensor (views). */
function firstRowsOf(tensors: Record<string, ort.Tensor>, n: number): Record<string, ort.Tensor> {
  const out: Record<string, ort.Tensor> = {};
  for (const [name, t] of Object.entries(tensors)) out[name] = firstRows(t, n);
  return out;
}

/** Tensors of at least `n` rows, the first row repeated where one has fewer (kept for later steps). */
function widenRows(tensors: Record<string, ort.Tensor>, n: number): Record<string, ort.Tensor> {
  const out: Record<string, ort.Tensor> = {};
  for (const [name, t] of Object.entries(tensors)) out[name] = t.dims[0] >= n ? t : gatherRows(t, Array.from({ length: n }, () => 0));
  return out;
}

/** The first `n` rows of a [batch, …] float tensor: a view, no copy. */
function firstRows(t: ort.Tensor, n: number): ort.Tensor {
  if (t.dims[0] === n) return t;
  const data = t.data as Float32Array;
  const rowSize = data.length / t.dims[0];
  return new ort.Tensor("float32", data.subarray(0, n * rowSize), [n, ...t.dims.slice(1)]);
}

export interface DecoderStep {
  /**
   * Logits, row-major [rows, vocab]: of every input position, or of the last ones only (a decoder
   * converted by scripts/models/convert_ct2_whisper.py gives the last 4 positions of a first call).
   */
  logits: Float32Array;
  /** Input position of the first row of `logits` (0 when every position has a row). */
  firstPosition: number;
  cache: DecoderCache;
}

export class WhisperDecoder {
  readonly layers: number;
  /**
   * Whether the decoder broadcasts a one-row cross-attention cache and encoder output over a batch
   * of hypotheses (the exported graphs attend with MatMul, which broadcasts the batch dimension:
   * the logits are the same as with the rows repeated). Tried on the first batched step; a graph
   * that refuses gets the rows repeated instead.
   */
  private broadcastCross: boolean | undefined;
  /**
   * What a call on the cache branch fetches: the logits and the self-attention caches. The
   * cross-attention caches it also outputs are its inputs again (kept from the first call), and
   * copying them out at every step is the largest copy of the step (bench/README.md).
   */
  private readonly cacheBranchOutputs: string[];

  constructor(
    private readonly session: ort.InferenceSession,
    readonly heads: number,
    readonly headDim: number,
    readonly vocabSize: number,
    private readonly onCall?: (trace: DecoderCallTrace) => void,
    /** Repeat the cross-attention rows for a batch instead of trying the broadcast (for comparison). */
    repeatCrossRows = false,
  ) {
    if (repeatCrossRows) this.broadcastCross = false;
    const names = session.inputNames;
    for (const required of ["input_ids", "encoder_hidden_states", "use_cache_branch"]) {
      if (!names.includes(required)) throw new Error(`decoder lacks input "${required}" (not a merged Whisper decoder?)`);
    }
    this.layers = names.filter((n) => /^past_key_values\.\d+\.decoder\.key$/.test(n)).length;
    if (this.layers === 0) throw new Error("decoder has no past_key_values inputs");
    this.cacheBranchOutputs = ["logits"];
    for (let i = 0; i < this.layers; i++) for (const kv of ["key", "value"]) this.cacheBranchOutputs.push(`present.${i}.decoder.${kv}`);
  }

  private empty(): ort.Tensor {
    return new ort.Tensor("float32", new Float32Array(0), [1, this.heads, 0, this.headDim]);
  }

  /** Runs the decoder on `inputIds` after the tokens held in `cache` (null for the first call). */
  async run(inputIds: readonly number[], encoderHidden: ort.Tensor, cache: DecoderCache | null): Promise<DecoderStep> {
    if (inputIds.length === 0) throw new RangeError("decoder needs at least one input token");
    const useCache = cache !== null;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: int64Tensor(inputIds, [1, inputIds.length]),
      encoder_hidden_states: encoderHidden,
      use_cache_branch: useCache ? CACHE_BRANCH : FIRST_BRANCH,
    };
    for (let i = 0; i < this.layers; i++) {
      for (const kv of ["key", "value"]) {
        const self = `past_key_values.${i}.decoder.${kv}`;
        const cross = `past_key_values.${i}.encoder.${kv}`;
        feeds[self] = cache?.self[self] ?? this.empty();
        feeds[cross] = cache?.cross[cross] ?? this.empty();
      }
    }
    this.onCall?.({ inputIds: [...inputIds], pastLength: cache?.length ?? 0, useCacheBranch: useCache });
    const out = useCache ? await this.session.run(feeds, this.cacheBranchOutputs) : await this.session.run(feeds);
    const next: DecoderCache = { self: {}, cross: cache?.cross ?? {}, length: (cache?.length ?? 0) + inputIds.length };
    for (let i = 0; i < this.layers; i++) {
      for (const kv of ["key", "value"]) {
        next.self[`past_key_values.${i}.decoder.${kv}`] = out[`present.${i}.decoder.${kv}`];
        if (!useCache) next.cross[`past_key_values.${i}.encoder.${kv}`] = out[`present.${i}.encoder.${kv}`];
      }
    }
    const logits = out.logits;
    if (logits.dims[2] !== this.vocabSize) {
      throw new Error(`decoder logits have ${logits.dims[2]} columns, config says vocab_size ${this.vocabSize}`);
    }
    const rows = logits.dims[1];
    if (!(rows >= 1 && rows <= inputIds.length)) throw new Error(`decoder gave ${rows} rows of logits for ${inputIds.length} positions`);
    return { logits: logits.data as Float32Array, firstPosition: inputIds.length - rows, cache: next };
  }

  /**
   * A cache holding no token yet, with the cross-attention caches of an earlier call on the same
   * encoder output (e.g. the language detection's): `run` then takes the cache branch and skips the
   * cross-attention projections of every encoder frame, most of a first call's cost (the logits
   * are the same).
   */
  startingFrom(cross: DecoderCache["cross"]): DecoderCache {
    const self: Record<string, ort.Tensor> = {};
    for (let i = 0; i < this.layers; i++) for (const kv of ["key", "value"]) self[`past_key_values.${i}.decoder.${kv}`] = this.empty();
    return { self, cross, length: 0 };
  }

  /** Whether batched steps feed one row of cross-attention cache (undefined until the first batched step). */
  get broadcastsCrossRows(): boolean | undefined {
    return this.broadcastCross;
  }

  /**
   * A cache holding rows `parents` of `cache` (a row may appear several times): the self-attention
   * caches are copied row by row; the cross-attention caches are equal on every row and stay one
   * row (see `step`).
   */
  reorder(cache: DecoderCache, parents: readonly number[]): DecoderCache {
    const self: Record<string, ort.Tensor> = {};
    for (const [name, t] of Object.entries(cache.self)) self[name] = gatherRows(t, parents);
    return { ...cache, self };
  }

  /**
   * One step of a batch: row r feeds `tokens[r]` after the tokens cached in row r of `cache`.
   * Returns the logits [rows, vocab] and the grown cache.
   */
  async step(tokens: readonly number[], encoderHidden: ort.Tensor, cache: DecoderCache): Promise<DecoderStep> {
    const n = tokens.length;
    const fixed = {
      input_ids: int64Tensor(tokens, [n, 1]),
      use_cache_branch: CACHE_BRANCH,
      ...cache.self,
    };
    this.onCall?.({ inputIds: [...tokens], pastLength: cache.length, useCacheBranch: true });
    let out: ort.InferenceSession.OnnxValueMapType | undefined;
    let crossWide = cache.crossWide;
    if (n === 1 || this.broadcastCross !== false) {
      try {
        out = await this.session.run({ ...fixed, encoder_hidden_states: firstRows(encoderHidden, 1), ...firstRowsOf(cache.cross, 1) }, this.cacheBranchOutputs);
        if (n > 1) this.broadcastCross = true;
      } catch (e) {
        if (n === 1 || this.broadcastCross === true) throw e;
        this.broadcastCross = false;
      }
    }
    if (!out) {
      crossWide = widenRows(crossWide ?? cache.cross, n);
      out = await this.session.run({ ...fixed, encoder_hidden_states: this.widen(encoderHidden, n), ...firstRowsOf(crossWide, n) }, this.cacheBranchOutputs);
    }
    const self: Record<string, ort.Tensor> = {};
    for (let i = 0; i < this.layers; i++) {
      for (const kv of ["key", "value"]) self[`past_key_values.${i}.decoder.${kv}`] = out[`present.${i}.decoder.${kv}`]!;
    }
    return { logits: out.logits!.data as Float32Array, firstPosition: 0, cache: { self, cross: cache.cross, ...(crossWide ? { crossWide } : {}), length: cache.length + 1 } };
  }

  private widened: { source: ort.Tensor; tensor: ort.Tensor } | null = null;

  /** The encoder output repeated to `n` rows (kept for the window's later steps). */
  private widen(hidden: ort.Tensor, n: number): ort.Tensor {
    const w = this.widened;
    if (w && w.source === hidden && w.tensor.dims[0] >= n) return firstRows(w.tensor, n);
    const tensor = gatherRows(hidden, Array.from({ length: n }, () => 0));
    this.widened = { source: hidden, tensor };
    return tensor;
  }
}
