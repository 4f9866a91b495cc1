/**
 * The streaming transducer engine: kaldi fbank features, chunked encoder with cached states
 * carried across calls of a growing utterance (by `streamKey`), greedy or modified beam search,
 * and hotword biasing of `vocabulary` phrases. A final call (`partial: false`) flushes the tail
 * and releases the stream's state.
 */
import type * as ort from "onnxruntime-node";
import type { Engine, EngineInfo, TranscribeRequest, TranscribeResult, VocabularyEntry, WordTiming } from "../types.ts";
import { withoutLead } from "../types.ts";
import { ContextGraph } from "./context-graph.ts";
import { Fbank } from "./fbank.ts";
import { TransducerModel } from "./model.ts";
import { GreedySearch, ModifiedBeamSearch, type TransducerSearch } from "./search.ts";
import { WORD_START } from "./tokens.ts";

export type TransducerDecoding = "greedy_search" | "modified_beam_search";

export interface TransducerEngineOptions {
  modelDir: string;
  name?: string;
  threads?: number;
  preferQuantized?: boolean;
  languages?: string[];
  /** Default "greedy_search"; requests with vocabulary always use modified beam search. */
  decoding?: TransducerDecoding;
  beamSize?: number;
  /** Bonus per matched hotword token at intensity 0.5 (default 1.5, as in sherpa-onnx). */
  hotwordScore?: number;
  /** Streams idle longer than this are dropped (default 60 s). */
  streamTtlMs?: number;
}

export interface TransducerTranscribeResult extends TranscribeResult {
  /** Emitted token ids. */
  tokens: number[];
  /** Score of the chosen hypothesis (log-probability, length-normalised for beam search). */
  score: number;
}

interface Stream {
  /** Feature frames computed so far (row-major, numBins wide). */
  features: Float32Array[];
  /** First feature frame of the next encoder chunk. */
  offset: number;
  /** Encoder output frames produced so far. */
  outFrames: number;
  /** Seconds per encoder output frame (known after the first chunk). */
  frameSeconds: number;
  states: ort.Tensor[];
  search: TransducerSearch;
  samplesSeen: number;
  vocabularyKey: string;
  touched: number;
}

export class TransducerEngine implements Engine {
  readonly info: EngineInfo;
  private readonly fbank: Fbank;
  private readonly streams = new Map<string, Stream>();
  private readonly beamSize: number;

  private constructor(private readonly model: TransducerModel, private readonly opts: TransducerEngineOptions) {
    this.fbank = new Fbank({ numBins: model.featureDim });
    this.beamSize = opts.beamSize ?? 4;
    this.info = {
      family: "transducer",
      name: opts.name ?? "transducer",
      languages: opts.languages ?? ["en"],
      features: ["custom_vocabulary"],
      translationTargets: [],
      sampleRate: 16000,
      streaming: true,
    };
  }

  static async load(opts: TransducerEngineOptions): Promise<TransducerEngine> {
    const model = await TransducerModel.load(opts.modelDir, { threads: opts.threads, preferQuantized: opts.preferQuantized });
    return new TransducerEngine(model, opts);
  }

  /** Number of cached streams (diagnostics). */
  get openStreams(): number {
    return this.streams.size;
  }

  private contextGraph(vocabulary: VocabularyEntry[] | undefined): ContextGraph | null {
    const base = this.opts.hotwordScore ?? 1.5;
    const phrases: { tokens: number[]; tokenScore: number }[] = [];
    for (const v of vocabulary ?? []) {
      const intensity = Math.min(1, Math.max(0, Number.isFinite(v.intensity) ? v.intensity : 0.5));
      for (const text of [v.phrase, ...(v.pronunciations ?? [])]) {
        const tokens = this.model.tokens.encodePhrase(text);
        if (tokens && tokens.length > 0) phrases.push({ tokens, tokenScore: base * 2 * intensity });
      }
    }
    return phrases.length > 0 ? new ContextGraph(phrases) : null;
  }

  private newStream(req: TranscribeRequest, vocabularyKey: string): Stream {
    const graph = this.contextGraph(req.vocabulary);
    const useBeam = graph !== null || this.opts.decoding === "modified_beam_search";
    return {
      features: [],
      offset: 0,
      outFrames: 0,
      frameSeconds: 0,
      states: this.model.initialStates(),
      search: useBeam ? new ModifiedBeamSearch(this.model, this.beamSize, graph) : new GreedySearch(this.model),
      samplesSeen: 0,
      vocabularyKey,
      touched: Date.now(),
    };
  }

  private expire(now: number): void {
    const ttl = this.opts.streamTtlMs ?? 60_000;
    for (const [k, s] of this.streams) if (now - s.touched > ttl) this.streams.delete(k);
  }

  async transcribe(request: TranscribeRequest): Promise<TransducerTranscribeResult> {
    const req = withoutLead(request); // a transducer's state carries the stream's context instead
    const audio = req.audio;
    if (!(audio instanceof Float32Array)) throw new TypeError("audio must be a Float32Array");
    for (let i = 0; i < audio.length; i++) {
      if (!Number.isFinite(audio[i])) throw new RangeError(`audio sample ${i} is not a finite number`);
    }
    if (req.task === "translate") throw new RangeError("this engine does not translate");
    const now = Date.now();
    this.expire(now);
    const vocabularyKey = JSON.stringify(req.vocabulary ?? []);
    let stream = req.streamKey !== undefined ? this.streams.get(req.streamKey) : undefined;
    // A stream whose audio shrank or whose vocabulary changed starts over.
    if (stream && (audio.length < stream.samplesSeen || stream.vocabularyKey !== vocabularyKey)) stream = undefined;
    stream ??= this.newStream(req, vocabularyKey);
    stream.touched = now;

    try {
      await this.feed(stream, audio, !req.partial);
    } catch (e) {
      if (req.streamKey !== undefined) this.streams.delete(req.streamKey);
      throw e;
    }
    if (req.streamKey !== undefined) {
      if (req.partial) this.streams.set(req.streamKey, stream);
      else this.streams.delete(req.streamKey);
    }
    return this.result(stream);
  }

  /** Computes new feature frames and runs every complete encoder chunk (all of them when final). */
  private async feed(stream: Stream, audio: Float32Array, final: boolean): Promise<void> {
    const { chunkFrames, chunkShift } = this.model;
    const realFrames = this.fbank.frameCount(audio.length);
    let source = audio;
    if (final) {
      // Zero tail so the last real frames fall inside a complete chunk.
      source = new Float32Array(audio.length + (chunkFrames + chunkShift) * this.fbank.frameShift);
      source.set(audio);
    }
    const available = this.fbank.frameCount(source.length);
    const have = stream.features.length;
    if (available > have) {
      const bins = this.fbank.numBins;
      const feats = this.fbank.compute(source, have, available);
      for (let f = 0; f < available - have; f++) stream.features.push(feats.subarray(f * bins, (f + 1) * bins));
    }
    stream.samplesSeen = audio.length;
    const limit = final ? realFrames : Infinity;
    while (stream.offset + chunkFrames <= stream.features.length && stream.offset < limit) {
      const chunk = new Float32Array(chunkFrames * this.fbank.numBins);
      for (let f = 0; f < chunkFrames; f++) chunk.set(stream.features[stream.offset + f], f * this.fbank.numBins);
      const out = await this.model.encode(chunk, stream.states);
      stream.states = out.states;
      stream.frameSeconds = (chunkShift * this.fbank.frameShift) / 16000 / out.count;
      await stream.search.advance(out.frames, out.count, out.dim, stream.outFrames);
      stream.outFrames += out.count;
      stream.offset += chunkShift;
      // Frames before the next chunk are no longer needed.
      for (let f = 0; f < stream.offset; f++) stream.features[f] = EMPTY;
    }
    if (final) stream.features.length = Math.min(stream.features.length, realFrames);
  }

  private result(stream: Stream): TransducerTranscribeResult {
    const { hyp, score } = stream.search.best();
    const tokens = hyp.ys.slice(this.model.contextSize);
    const table = this.model.tokens;
    const words: WordTiming[] = [];
    let current: { ids: number[]; frames: number[]; lps: number[] } | null = null;
    const flush = () => {
      if (!current) return;
      const word = table.detokenize(current.ids);
      if (word !== "") {
        const mean = current.lps.reduce((a, b) => a + b, 0) / current.lps.length;
        words.push({
          word,
          start: round(current.frames[0] * stream.frameSeconds),
          end: round((current.frames[current.frames.length - 1] + 1) * stream.frameSeconds),
          confidence: round(Math.exp(mean)),
        });
      }
      current = null;
    };
    tokens.forEach((id, i) => {
      const sym = table.symbols[id] ?? "";
      if (sym.startsWith(WORD_START) || current === null) flush();
      current ??= { ids: [], frames: [], lps: [] };
      current.ids.push(id);
      current.frames.push(hyp.frames[i]);
      current.lps.push(hyp.tokenLogprobs[i]);
    });
    flush();
    const text = words.map((w) => w.word).join(" ");
    const confidence = words.length > 0 ? round(words.reduce((a, w) => a + w.confidence, 0) / words.length) : 0;
    return {
      text,
      language: this.info.languages[0] ?? "en",
      confidence,
      words,
      noSpeech: text === "",
      tokens,
      score,
    };
  }

  async dispose(): Promise<void> {
    this.streams.clear();
    await this.model.release();
  }
}

const EMPTY = new Float32Array(0);

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
