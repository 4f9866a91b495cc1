/**
 * Whisper decoding: logit filters (suppressed tokens, timestamp rules as in openai/whisper),
 * greedy/temperature sampling and beam search over a cached merged decoder.
 */
import type * as ort from "onnxruntime-node";
import type { WhisperTokenizer } from "../../tokenizer/whisper.ts";
import type { DecoderCache, DecoderStep, WhisperDecoder } from "./decoder.ts";
import { stopIfAborted } from "../../util/abort.ts";
import { loopCut } from "./repetition.ts";

export interface FilterConfig {
  tokenizer: WhisperTokenizer;
  timestamps: boolean;
  suppressTokens: number[];
  beginSuppressTokens: number[];
  maxInitialTimestampIndex: number;
  /**
   * The first sampled timestamp is at least this index (after a timed prefix: where the new audio
   * starts); it then has no maximum. Absent: 0, and `maxInitialTimestampIndex` applies.
   */
  minInitialTimestampIndex?: number;
  /** Vocabulary phrases favoured while decoding (custom vocabulary), each with its logit bonus. */
  bias?: PhraseBias[];
}

/** A phrase's tokens and the bonus added to the logit of its next token (see `LogitFilters.apply`). */
export interface PhraseBias {
  tokens: number[];
  bonus: number;
}

/** Applies Whisper's logit filters in place to one row, given the tokens sampled so far. */
export class LogitFilters {
  private readonly always: Int32Array;
  private readonly begin: Int32Array;

  constructor(private readonly cfg: FilterConfig) {
    const tk = cfg.tokenizer;
    const always = new Set(cfg.suppressTokens.filter((t) => t >= 0));
    for (const t of [tk.sot, tk.sotPrev, tk.sotLm, tk.transcribe, tk.translate, tk.noSpeech, tk.noTimestamps]) always.add(t);
    for (const t of tk.languageTokens.values()) always.add(t);
    this.always = Int32Array.from(always);
    this.begin = Int32Array.from(cfg.beginSuppressTokens);
  }

  apply(logits: Float32Array, sampled: readonly number[]): void {
    const tk = this.cfg.tokenizer;
    const V = logits.length;
    const tsBegin = tk.timestampBegin;
    if (this.cfg.bias?.length) favour(logits, sampled.filter((t) => !tk.isTimestamp(t)), this.cfg.bias);
    for (const t of this.always) if (t < V) logits[t] = -Infinity;
    if (sampled.length === 0) for (const t of this.begin) if (t < V) logits[t] = -Infinity;
    if (!this.cfg.timestamps) {
      logits.fill(-Infinity, tsBegin, V);
      return;
    }
    const n = sampled.length;
    const lastWasTs = n >= 1 && tk.isTimestamp(sampled[n - 1]);
    const penultimateWasTs = n < 2 || tk.isTimestamp(sampled[n - 2]);
    if (lastWasTs) {
      if (penultimateWasTs) logits.fill(-Infinity, tsBegin, V);
      else logits.fill(-Infinity, 0, tk.eot);
    }
    let lastTs = -1;
    for (let i = n - 1; i >= 0; i--) {
      if (tk.isTimestamp(sampled[i])) {
        lastTs = sampled[i];
        break;
      }
    }
    if (lastTs >= 0) {
      const floor = lastWasTs && !penultimateWasTs ? lastTs : lastTs + 1;
      logits.fill(-Infinity, tsBegin, Math.min(floor, V));
    }
    if (n === 0) {
      logits.fill(-Infinity, 0, tsBegin);
      const min = this.cfg.minInitialTimestampIndex;
      if (min !== undefined) logits.fill(-Infinity, tsBegin, Math.min(V, tsBegin + min));
      else logits.fill(-Infinity, Math.min(V, tsBegin + this.cfg.maxInitialTimestampIndex + 1), V);
    }
    // If the timestamps together are likelier than any single text token, force a timestamp.
    // Compared on the logits: log-softmax shifts every entry by the same amount.
    const maxText = maxOf(logits.subarray(0, tsBegin));
    if (logSumExp(logits, tsBegin, V) > maxText) logits.fill(-Infinity, 0, tsBegin);
  }
}

/**
 * Custom vocabulary while decoding (contextual biasing): for each phrase, the longest beginning of
 * it that the text sampled so far ends with (possibly none) is found, and the phrase's next token
 * gets the phrase's bonus. A phrase is thus easier to start, and easier to finish once started.
 */
export function favour(logits: Float32Array, text: readonly number[], bias: readonly PhraseBias[]): void {
  for (const { tokens, bonus } of bias) {
    if (tokens.length === 0 || !(bonus > 0)) continue;
    for (let k = Math.min(tokens.length - 1, text.length); k >= 0; k--) {
      let match = true;
      for (let i = 0; i < k && match; i++) match = text[text.length - k + i] === tokens[i];
      if (!match) continue;
      const next = tokens[k]!;
      if (next < logits.length && logits[next] !== -Infinity) logits[next] += bonus;
      break;
    }
  }
}

export function logAddExp(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  const m = Math.max(a, b);
  return m + Math.log(Math.exp(a - m) + Math.exp(b - m));
}

/**
 * The largest entry of `a` (−Infinity when empty). Hot loops here run over a whole array, up to its
 * own `length`: JSC then drops the bounds checks, and a loop up to another bound ran three times
 * slower on a 51 864-logit row (the search's own time was mostly such loops).
 */
function maxOf(a: Float32Array): number {
  const n = a.length;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    if (v > max) max = v;
  }
  return max;
}

/** log Σ exp(row[i]) over [from, to) (−Infinity when every entry is −Infinity), in one pass and no allocation. */
export function logSumExp(row: Float32Array, from = 0, to = row.length): number {
  const a = from === 0 && to === row.length ? row : row.subarray(from, to);
  const max = maxOf(a);
  if (max === -Infinity) return -Infinity;
  const n = a.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(a[i]! - max);
  return max + Math.log(sum);
}

/** The index of the largest finite entry (the first of equals), or undefined when none is. */
function argmax(row: Float32Array): number | undefined {
  let best: number | undefined;
  let v = -Infinity;
  for (let i = 0; i < row.length; i++) if (row[i] > v) v = row[best = i];
  return best;
}

/** log_softmax of a row (−Infinity entries stay −Infinity). */
export function logSoftmax(row: Float32Array, temperature = 1): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) if (row[i] > max) max = row[i];
  const out = new Float64Array(row.length);
  if (max === -Infinity) return out.fill(-Infinity);
  let sum = 0;
  for (let i = 0; i < row.length; i++) sum += Math.exp((row[i] - max) / temperature);
  const lse = Math.log(sum);
  for (let i = 0; i < row.length; i++) out[i] = (row[i] - max) / temperature - lse;
  return out;
}

/** Indices of the k largest finite values, largest first. */
export function topK(values: Float64Array | Float32Array, k: number): number[] {
  const best: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === -Infinity || Number.isNaN(v)) continue;
    if (best.length === k && v <= values[best[k - 1]]) continue;
    let j = best.length < k ? best.length : k - 1;
    best[j] = i;
    while (j > 0 && values[best[j - 1]] < v) {
      best[j] = best[j - 1];
      best[j - 1] = i;
      j--;
    }
  }
  return best;
}

export interface SearchOptions {
  /** Decoder input of the first call (optional <|startofprev|> context, then the sot sequence). */
  prompt: number[];
  /**
   * Index of <|startoftranscript|> in `prompt` (its logits give the no-speech probability); null
   * when a forced prefix follows it (the prefix is speech: the probability is reported as 0).
   */
  sotIndex: number | null;
  /** Maximum sampled tokens. */
  sampleLen: number;
  beamSize: number;
  /** 0 = argmax/beam; above 0 = sampling at this temperature. */
  temperature: number;
  /**
   * At a temperature above 0, this many texts are sampled side by side (one batch per step) and the
   * one with the highest log-probability per token is kept, as faster-whisper's `best_of`. Absent
   * or 1: one text.
   */
  bestOf?: number;
  random: () => number;
  /** Stops the search between decoder calls (rejects with the signal's reason). */
  signal?: AbortSignal;
  /**
   * The decoder's first call on `prompt` (no cache), when the caller shares it between searches of
   * one window: its output depends on the prompt and the encoder output only, so the attempts of a
   * temperature fallback need it once. Absent: each search makes its own.
   */
  firstCall?: () => Promise<DecoderStep>;
  /**
   * Stop a hypothesis as soon as its text loops (`loopCut`), keeping the loop's unit once. Each
   * check is one way of comparing: the tokens left out (timestamps; timestamps and punctuation, for
   * a loop whose repeats are punctuated differently: "I'm a hero. I'm a hero,") and the different
   * tokens a unit needs. Absent: no check.
   */
  loopChecks?: readonly { skip: (token: number) => boolean; minDistinct: number }[];
  /**
   * Whether a hypothesis's tokens hold more words than its audio can (checked every
   * `DENSITY_CHECK_EVERY` tokens): such a hypothesis stops there, as at the token budget, and ranks
   * after every other. Absent: no check.
   */
  tooDense?: (tokens: readonly number[]) => boolean;
}

const DENSITY_CHECK_EVERY = 4;
const runsOn = (tokens: readonly number[], opts: SearchOptions) => opts.tooDense !== undefined && tokens.length % DENSITY_CHECK_EVERY === 0 && opts.tooDense(tokens);

/** A finished hypothesis of the beam or of `bestOf` samples. */
interface Ended {
  tokens: number[];
  logprobs: number[];
  sum: number;
  looped?: boolean;
  dense?: boolean;
}

/**
 * openai/whisper's ranking without a length penalty: sum log-probability / length. A hypothesis cut
 * out of a loop ranks only when every one was, one stopped as too dense only after those.
 */
function likeliest(ended: readonly Ended[]): Ended {
  const pool = [ended.filter((e) => !e.looped && !e.dense), ended.filter((e) => !e.dense), ended].find((p) => p.length > 0)!;
  let best = pool[0]!;
  let bestScore = -Infinity;
  for (const e of pool) {
    const s = e.sum / Math.max(1, e.tokens.length);
    if (s > bestScore) {
      bestScore = s;
      best = e;
    }
  }
  return best;
}

export interface SearchResult {
  /** Sampled tokens, end-of-text excluded. */
  tokens: number[];
  /** Log-probability of each sampled token. */
  tokenLogprobs: number[];
  sumLogprob: number;
  /** sumLogprob / (tokens + 1), as openai/whisper computes it. */
  avgLogprob: number;
  noSpeechProb: number;
  /** The search stopped a repetition loop: `tokens` end where it began (see `SearchOptions.loopChecks`). */
  looped: boolean;
}

/** Where a hypothesis's tail loops (-1: it does not, or no check was asked for). */
function loopAt(tokens: readonly number[], opts: SearchOptions): number {
  if (!opts.loopChecks || tokens.length < 10) return -1;
  for (const { skip, minDistinct } of opts.loopChecks) {
    const at = loopCut(tokens, skip, minDistinct);
    if (at >= 0) return at;
  }
  return -1;
}

const sumOf = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** Runs greedy decoding, temperature sampling or beam search for one 30-s window. */
export async function decodeWindow(
  decoder: WhisperDecoder,
  encoderHidden: ort.Tensor,
  filters: LogitFilters,
  eot: number,
  noSpeechToken: number,
  opts: SearchOptions,
): Promise<SearchResult> {
  const V = decoder.vocabSize;
  const first = await (opts.firstCall ? opts.firstCall() : decoder.run(opts.prompt, encoderHidden, null));
  let noSpeechProb = 0;
  if (opts.sotIndex !== null) {
    const sotAt = opts.sotIndex - first.firstPosition;
    if (sotAt < 0) throw new Error(`the decoder gave no logits for <|startoftranscript|> (position ${opts.sotIndex})`);
    const sotRow = first.logits.subarray(sotAt * V, (sotAt + 1) * V);
    noSpeechProb = Math.exp(sotRow[noSpeechToken] - logSumExp(sotRow));
  }
  const lastRow = first.logits.slice(first.logits.length - V);

  const score = (row: Float32Array, sampled: number[]) => {
    filters.apply(row, sampled);
    return row;
  };
  const finish = (tokens: number[], logprobs: number[], sum: number, looped = false): SearchResult => ({
    tokens,
    tokenLogprobs: logprobs,
    sumLogprob: sum,
    avgLogprob: sum / (tokens.length + 1),
    noSpeechProb,
    looped,
  });

  if (opts.temperature > 0 && (opts.bestOf ?? 1) > 1) return bestOfSamples(decoder, encoderHidden, first.cache, score(lastRow, []), score, eot, opts, finish);

  if (opts.beamSize <= 1 || opts.temperature > 0) {
    const tokens: number[] = [];
    const logprobs: number[] = [];
    let sum = 0;
    let row = score(lastRow, tokens);
    let cache = first.cache;
    for (let step = 0; step < opts.sampleLen; step++) {
      // The chosen token's log-probability needs only the row's log-sum-exp, not a log-softmax array.
      const token = opts.temperature > 0 ? sample(row, opts.temperature, opts.random) : argmax(row);
      if (token === undefined) break;
      const lp = row[token] - logSumExp(row);
      sum += lp;
      if (token === eot) break;
      tokens.push(token);
      logprobs.push(lp);
      const cut = loopAt(tokens, opts);
      if (cut >= 0) return finish(tokens.slice(0, cut), logprobs.slice(0, cut), sumOf(logprobs.slice(0, cut)), true);
      if (step === opts.sampleLen - 1 || runsOn(tokens, opts)) break;
      await stopIfAborted(opts.signal);
      const next = await decoder.run([token], encoderHidden, cache);
      cache = next.cache;
      row = score(next.logits.subarray(0, V), tokens); // the output is ours: filtered in place
    }
    return finish(tokens, logprobs, sum);
  }

  // Beam search (openai/whisper's BeamSearchDecoder, patience 1): the live hypotheses run as one
  // batch per step; each proposes its beam + 1 best tokens, the best `beam` that do not end stay
  // live, and ending ones are kept until `beam` have finished.
  const beam = opts.beamSize;
  // Each live hypothesis keeps only its `beam + 1` best next tokens and their log-probabilities.
  const proposals = (row: Float32Array): Map<number, number> => {
    const lse = logSumExp(row);
    return new Map(topK(row, beam + 1).map((t) => [t, row[t] - lse]));
  };
  let live: { tokens: number[]; logprobs: number[]; sum: number; next: Map<number, number> }[] = [
    { tokens: [], logprobs: [], sum: 0, next: proposals(score(lastRow, [])) },
  ];
  let cache = first.cache;
  const finished: Ended[] = [];
  for (let step = 0; step < opts.sampleLen && live.length > 0; step++) {
    const candidates: { parent: number; token: number; sum: number }[] = [];
    live.forEach((h, parent) => {
      for (const [token, lp] of h.next) candidates.push({ parent, token, sum: h.sum + lp });
    });
    candidates.sort((a, b) => b.sum - a.sum);
    let kept: typeof candidates = [];
    for (const c of candidates) {
      if (c.token === eot) {
        const p = live[c.parent];
        if (finished.length < beam) finished.push({ tokens: p.tokens, logprobs: p.logprobs, sum: c.sum });
      } else {
        kept.push(c);
        if (kept.length === beam) break;
      }
    }
    let extended = kept.map((c) => {
      const p = live[c.parent];
      return { tokens: [...p.tokens, c.token], logprobs: [...p.logprobs, p.next.get(c.token)!], sum: c.sum };
    });
    // A hypothesis caught in a loop ends here, cut where the loop began; one denser than speech
    // ends as it is.
    const cuts = extended.map((e) => loopAt(e.tokens, opts));
    const dense = extended.map((e, i) => cuts[i]! < 0 && runsOn(e.tokens, opts));
    if (cuts.some((c) => c >= 0) || dense.some((d) => d)) {
      cuts.forEach((c, i) => {
        if (finished.length >= beam) return;
        const e = extended[i]!;
        if (dense[i]) finished.push({ ...e, dense: true });
        if (c < 0) return;
        const logprobs = e.logprobs.slice(0, c);
        finished.push({ tokens: e.tokens.slice(0, c), logprobs, sum: sumOf(logprobs), looped: true });
      });
      kept = kept.filter((_, i) => cuts[i]! < 0 && !dense[i]);
      extended = extended.filter((_, i) => cuts[i]! < 0 && !dense[i]);
    }
    if (finished.length >= beam || step === opts.sampleLen - 1 || kept.length === 0) {
      for (const e of extended) if (finished.length < beam) finished.push(e);
      break;
    }
    await stopIfAborted(opts.signal);
    cache = decoder.reorder(cache, kept.map((c) => c.parent));
    const out = await decoder.step(kept.map((c) => c.token), encoderHidden, cache);
    cache = out.cache;
    live = extended.map((e, r) => ({ ...e, next: proposals(score(out.logits.subarray(r * V, (r + 1) * V), e.tokens)) }));
  }
  if (finished.length === 0) return finish([], [], 0);
  const best = likeliest(finished);
  return finish(best.tokens, best.logprobs, best.sum, best.looped === true);
}

/**
 * Temperature sampling of `opts.bestOf` texts in one batch per step, each row drawn on its own; a
 * row ends at end-of-text, where its text loops (`loopAt`, kept up to the loop) or once it is too
 * dense (`SearchOptions.tooDense`). Ranked as the beam's hypotheses are (`likeliest`).
 */
async function bestOfSamples(
  decoder: WhisperDecoder,
  encoderHidden: ort.Tensor,
  firstCache: DecoderCache,
  firstRow: Float32Array,
  score: (row: Float32Array, sampled: number[]) => Float32Array,
  eot: number,
  opts: SearchOptions,
  finish: (tokens: number[], logprobs: number[], sum: number, looped?: boolean) => SearchResult,
): Promise<SearchResult> {
  const V = decoder.vocabSize;
  const n = opts.bestOf ?? 1;
  type Row = { tokens: number[]; logprobs: number[]; sum: number; row: Float32Array };
  // Every sample starts from the first call's one filtered row; sampling does not change it.
  let live: Row[] = Array.from({ length: n }, () => ({ tokens: [], logprobs: [], sum: 0, row: firstRow }));
  let cache = decoder.reorder(firstCache, new Array(n).fill(0));
  const done: Ended[] = [];
  for (let step = 0; live.length > 0; step++) {
    const next: Row[] = [];
    const parents: number[] = [];
    live.forEach((h, r) => {
      const token = sample(h.row, opts.temperature, opts.random);
      const lp = token === undefined ? 0 : h.row[token] - logSumExp(h.row);
      if (token === undefined || token === eot) {
        done.push({ tokens: h.tokens, logprobs: h.logprobs, sum: h.sum + lp, looped: false });
        return;
      }
      const tokens = [...h.tokens, token];
      const logprobs = [...h.logprobs, lp];
      const cut = loopAt(tokens, opts);
      if (cut >= 0) done.push({ tokens: tokens.slice(0, cut), logprobs: logprobs.slice(0, cut), sum: sumOf(logprobs.slice(0, cut)), looped: true });
      else if (step === opts.sampleLen - 1) done.push({ tokens, logprobs, sum: h.sum + lp, looped: false });
      else if (runsOn(tokens, opts)) done.push({ tokens, logprobs, sum: h.sum + lp, dense: true });
      else {
        next.push({ tokens, logprobs, sum: h.sum + lp, row: h.row });
        parents.push(r);
      }
    });
    if (next.length === 0) break;
    await stopIfAborted(opts.signal);
    cache = decoder.reorder(cache, parents);
    const out = await decoder.step(next.map((h) => h.tokens[h.tokens.length - 1]!), encoderHidden, cache);
    cache = out.cache;
    live = next.map((h, r) => ({ ...h, row: score(out.logits.subarray(r * V, (r + 1) * V), h.tokens) }));
  }
  const best = likeliest(done);
  return finish(best.tokens, best.logprobs, best.sum, best.looped === true);
}

/**
 * A token drawn from softmax(row / temperature), undefined when every entry is −Infinity. Two
 * passes over the row and no array: five samples a step would otherwise build five log-softmax rows.
 */
function sample(row: Float32Array, temperature: number, random: () => number): number | undefined {
  const max = maxOf(row);
  if (max === -Infinity) return undefined;
  const n = row.length;
  let total = 0;
  for (let i = 0; i < n; i++) total += Math.exp((row[i]! - max) / temperature);
  let u = random() * total;
  let last: number | undefined;
  for (let i = 0; i < n; i++) {
    const v = row[i]!;
    if (v === -Infinity) continue;
    last = i;
    u -= Math.exp((v - max) / temperature);
    if (u <= 0) return i;
  }
  return last;
}
