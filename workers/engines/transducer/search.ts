/**
 * Transducer search over streamed encoder frames: greedy (one symbol per frame at most) and
 * modified beam search (sherpa-onnx's: top-k over every hypothesis × token per frame, one symbol
 * per frame, merging equal prefixes), with optional contextual biasing.
 */
import type { ContextGraph, ContextState } from "./context-graph.ts";
import type { TransducerModel } from "./model.ts";

export interface Hypothesis {
  /** Context prefix (`contextSize` blanks) then emitted tokens. */
  ys: number[];
  logProb: number;
  /** Encoder frame index of each emitted token. */
  frames: number[];
  tokenLogprobs: number[];
  context: ContextState | null;
}

export interface TransducerSearch {
  /** Consumes `count` encoder frames of width `dim`; `firstFrame` is the stream index of the first. */
  advance(frames: Float32Array, count: number, dim: number, firstFrame: number): Promise<void>;
  /** Best hypothesis so far (contextual bonus of unfinished matches removed). */
  best(): { hyp: Hypothesis; score: number };
}

function logSoftmaxRow(src: Float32Array, off: number, n: number): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < n; i++) max = Math.max(max, src[off + i]);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(src[off + i] - max);
  const lse = max + Math.log(sum);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = src[off + i] - lse;
  return out;
}

function logAdd(a: number, b: number): number {
  const m = Math.max(a, b);
  return m === -Infinity ? m : m + Math.log(Math.exp(a - m) + Math.exp(b - m));
}

function startHyp(model: TransducerModel, graph: ContextGraph | null): Hypothesis {
  return {
    ys: new Array(model.contextSize).fill(model.tokens.blank),
    logProb: 0,
    frames: [],
    tokenLogprobs: [],
    context: graph ? graph.start : null,
  };
}

export class GreedySearch implements TransducerSearch {
  private hyp: Hypothesis;
  private decoderOut: Float32Array | null = null;
  private decDim = 0;

  constructor(private readonly model: TransducerModel) {
    this.hyp = startHyp(model, null);
  }

  async advance(frames: Float32Array, count: number, dim: number, firstFrame: number): Promise<void> {
    const { model } = this;
    const blank = model.tokens.blank;
    for (let t = 0; t < count; t++) {
      if (!this.decoderOut) {
        const d = await model.decode([this.hyp.ys.slice(-model.contextSize)]);
        this.decoderOut = d.data;
        this.decDim = d.dim;
      }
      const logits = await model.join(frames.slice(t * dim, (t + 1) * dim), this.decoderOut, 1, dim, this.decDim);
      const lp = logSoftmaxRow(logits, 0, logits.length);
      let best = 0;
      for (let v = 1; v < lp.length; v++) if (lp[v] > lp[best]) best = v;
      this.hyp.logProb += lp[best];
      if (best !== blank) {
        this.hyp.ys.push(best);
        this.hyp.frames.push(firstFrame + t);
        this.hyp.tokenLogprobs.push(lp[best]);
        this.decoderOut = null;
      }
    }
  }

  best(): { hyp: Hypothesis; score: number } {
    return { hyp: this.hyp, score: this.hyp.logProb };
  }
}

export class ModifiedBeamSearch implements TransducerSearch {
  private hyps: Hypothesis[];
  private readonly decoderCache = new Map<string, Float32Array>();
  private decDim = 0;

  constructor(
    private readonly model: TransducerModel,
    private readonly beam: number,
    private readonly graph: ContextGraph | null = null,
  ) {
    if (!Number.isInteger(beam) || beam < 1) throw new RangeError("beam size must be a positive integer");
    this.hyps = [startHyp(model, graph)];
  }

  private key(h: Hypothesis): string {
    return h.ys.slice(-this.model.contextSize).join(",");
  }

  private async decoderOutputs(): Promise<Float32Array[]> {
    const missing = [...new Set(this.hyps.map((h) => this.key(h)).filter((k) => !this.decoderCache.has(k)))];
    if (missing.length > 0) {
      const d = await this.model.decode(missing.map((k) => k.split(",").map(Number)));
      this.decDim = d.dim;
      missing.forEach((k, i) => this.decoderCache.set(k, d.data.slice(i * d.dim, (i + 1) * d.dim)));
    }
    return this.hyps.map((h) => this.decoderCache.get(this.key(h))!);
  }

  async advance(frames: Float32Array, count: number, dim: number, firstFrame: number): Promise<void> {
    const blank = this.model.tokens.blank;
    for (let t = 0; t < count; t++) {
      const decs = await this.decoderOutputs();
      const n = this.hyps.length;
      const enc = new Float32Array(n * dim);
      const dec = new Float32Array(n * this.decDim);
      for (let i = 0; i < n; i++) {
        enc.set(frames.subarray(t * dim, (t + 1) * dim), i * dim);
        dec.set(decs[i], i * this.decDim);
      }
      const logits = await this.model.join(enc, dec, n, dim, this.decDim);
      const V = logits.length / n;
      const cands: { i: number; v: number; lp: number; score: number }[] = [];
      for (let i = 0; i < n; i++) {
        const lp = logSoftmaxRow(logits, i * V, V);
        for (let v = 0; v < V; v++) cands.push({ i, v, lp: lp[v], score: this.hyps[i].logProb + lp[v] });
      }
      cands.sort((a, b) => b.score - a.score);
      const merged = new Map<string, Hypothesis>();
      for (const c of cands.slice(0, this.beam)) {
        const parent = this.hyps[c.i];
        let next: Hypothesis;
        if (c.v === blank) {
          next = { ...parent, logProb: c.score };
        } else {
          let bonus = 0;
          let context = parent.context;
          if (this.graph && context) {
            const f = this.graph.forward(context, c.v);
            bonus = f.score;
            context = f.state;
          }
          next = {
            ys: [...parent.ys, c.v],
            logProb: c.score + bonus,
            frames: [...parent.frames, firstFrame + t],
            tokenLogprobs: [...parent.tokenLogprobs, c.lp],
            context,
          };
        }
        const k = next.ys.join(",");
        const prev = merged.get(k);
        if (prev) prev.logProb = logAdd(prev.logProb, next.logProb);
        else merged.set(k, next);
      }
      this.hyps = [...merged.values()];
    }
  }

  best(): { hyp: Hypothesis; score: number } {
    let best = this.hyps[0];
    let bestScore = -Infinity;
    for (const h of this.hyps) {
      const fin = this.graph && h.context ? this.graph.finalize(h.context) : 0;
      const score = (h.logProb + fin) / h.ys.length;
      if (score > bestScore) {
        bestScore = score;
        best = h;
      }
    }
    return { hyp: best, score: bestScore };
  }
}
