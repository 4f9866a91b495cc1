/**
 * The Whisper-family engine: log-mel front end (30-s windows), ONNX encoder, merged decoder with
 * key/value cache, language detection, transcribe/translate, timestamps → segment and word
 * timings, greedy or beam search with temperature fallback, and hallucination guards.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { WHISPER_CHUNK_SAMPLES, WHISPER_SAMPLE_RATE, loadWhisperMelFilters, whisperLogMel } from "../../dsp/whisper-mel.ts";
import { WhisperTokenizer } from "../../tokenizer/whisper.ts";
import { type Engine, type EngineInfo, type LanguageProbability, type TranscribeRequest, type WordTiming, outOfContext, withoutLead } from "../types.ts";
import { loadWhisperConfig, type WhisperModelConfig } from "./config.ts";
import { type DecoderCache, type DecoderStep, WhisperDecoder } from "./decoder.ts";
import { DEFAULT_DECODING, TOKEN_SLACK, encoderWindowSamples, type WhisperDecodingOptions } from "./decoding-options.ts";
import { WhisperEncoder } from "./encoder.ts";
import { WhisperAligner } from "./alignment.ts";
import type { WhisperEngineOptions, WhisperTranscribeRequest, WhisperTranscribeResult } from "./engine-types.ts";
import { checkAudio, peak, promptLed } from "./guards.ts";
import { contextPrompt, vocabularyBias } from "./prompt.ts";
import { LogitFilters, decodeWindow, logSoftmax, type SearchResult } from "./search.ts";
import { compressionRatio, seekAdvance, spokenWeight, tokensToSegments, type TimedSegment } from "./segments.ts";
import { afterPrefix, ledSegments, usableLead } from "./lead.ts";
import { lastClosedSegment, tooDense } from "./repetition.ts";
import { type LanguageDecode, byDecode, reweighted, rivalLanguage, withPriorProbabilities } from "./language-choice.ts";
import { mulberry32 } from "../../util/prng.ts";
import { stopIfAborted } from "../../util/abort.ts";

/** A window cut out of a loop resumes after its last whole segment when that ends at least this far (s) into it. */
const MIN_LOOP_RESUME_S = 1;
/** Most loop resumes per request: a final, a partial (each costs an encoder call). */
const MAX_LOOP_RESUMES = 3;
const MAX_LOOP_RESUMES_PARTIAL = 1;
/**
 * Seconds per unit of `spokenWeight` at a usual speaking rate (about 150 words a minute), a little
 * fast: a loop's start estimated early is re-read (the prompt ends with its text, which Whisper
 * does not repeat), one estimated late would lose words.
 */
const SECONDS_PER_SPOKEN_WEIGHT = 0.06;
/** A window decoded above this temperature is not used as the next window's prompt (faster-whisper's prompt_reset_on_temperature). */
const PROMPT_RESET_TEMPERATURE = 0.5;

/** Most intra-op threads of the wider encoder. */
const MAX_WIDE_THREADS = 4;

/** Session options of the wider encoder: its threads block between operations (spinning threads take cores the other workers need). */
function wideSessionOptions(threads: number): ort.InferenceSession.SessionOptions {
  return {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: "all",
    extra: { session: { intra_op: { allow_spinning: "0" } } },
  };
}

/**
 * Encoder outputs of one request's windows, kept for the decodes of the same audio it leads to
 * (decoded again unprompted, without its lead, or in another language): keyed by the window's
 * place in the audio's buffer and the encoder's shape. With them, each encoder output's
 * temperature-0 decodes by what they were asked (`greedyKey`): a final whose language was
 * uncertain falls back from the winner's temperature-0 decode, not from a second run of it.
 */
interface EncodedWindows {
  buffer: ArrayBufferLike;
  windows: Map<string, ort.Tensor>;
  greedy: WeakMap<ort.Tensor, Map<string, SearchResult>>;
}

const NO_SPEECH: Omit<WhisperTranscribeResult, "language"> = {
  text: "", confidence: 0, words: [], noSpeech: true, segments: [], stats: [],
};


export class WhisperEngine implements Engine {
  readonly info: EngineInfo;
  private readonly decoder: WhisperDecoder;
  private readonly decoding: WhisperDecodingOptions;
  /**
   * The encoder with more intra-op threads, for calls that may use more cores
   * (`TranscribeRequest.cores`): loaded in the background by the first such call, which itself runs
   * on the one-thread encoder. Its threads sleep between operations instead of spinning.
   */
  private wideEncoder: { cores: number; session: Promise<ort.InferenceSession | null>; ready: ort.InferenceSession | null } | null = null;
  /** The encoder takes a variable number of mel frames (a symbolic input length): short utterances get shorter windows. */
  private readonly variableWindow: boolean;
  private readonly isTimestamp = (t: number) => this.tokenizer.isTimestamp(t);
  /** Loops are looked for in the text without timestamps, and without punctuation too (units of two different tokens or more). */
  private readonly loopChecks = [
    { skip: this.isTimestamp, minDistinct: 1 },
    { skip: (t: number) => this.isTimestamp(t) || this.tokenizer.isPunctuation(t), minDistinct: 2 },
  ];

  private constructor(
    private readonly cfg: WhisperModelConfig,
    private readonly tokenizer: WhisperTokenizer,
    private readonly encoder: WhisperEncoder,
    private readonly decoderSession: ort.InferenceSession,
    private readonly melFilters: Float32Array | undefined,
    private readonly opts: WhisperEngineOptions,
    /** Times words by cross-attention alignment; null: by spoken length (a conversion without `decoder_alignment.onnx`). */
    private readonly aligner: WhisperAligner | null,
  ) {
    this.decoder = new WhisperDecoder(decoderSession, cfg.decoderHeads, cfg.headDim, cfg.vocabSize, opts.onDecoderCall);
    this.decoding = { ...DEFAULT_DECODING, ...opts.decoding };
    const input = encoder.inputMetadata.find((m) => m.name === "input_features");
    this.variableWindow = input?.isTensor === true && typeof input.shape[2] === "string";
    const languages = cfg.multilingual ? (cfg.languages ?? [...tokenizer.languageTokens.keys()]) : ["en"];
    this.info = {
      family: "whisper",
      name: opts.name ?? "whisper",
      languages,
      features: cfg.multilingual
        ? ["custom_vocabulary", "translation", "language_detection"]
        : ["custom_vocabulary"],
      translationTargets: cfg.multilingual ? ["en"] : [],
      sampleRate: WHISPER_SAMPLE_RATE,
      streaming: false,
    };
  }

  /** Loads configuration, tokenizer, mel filters and both ONNX sessions. */
  static async load(opts: WhisperEngineOptions): Promise<WhisperEngine> {
    const cfg = loadWhisperConfig(opts.modelDir, { nMels: opts.nMels, quantized: opts.preferQuantized });
    const tokenizer = WhisperTokenizer.load(opts.assetsDir, {
      encoding: cfg.multilingual ? "multilingual" : "gpt2",
      numLanguages: cfg.numLanguages,
    });
    if (tokenizer.vocabSize !== cfg.vocabSize) {
      throw new Error(`tokenizer has ${tokenizer.vocabSize} tokens, model config says ${cfg.vocabSize}`);
    }
    const filterFile = join(opts.assetsDir, `mel_${cfg.nMels}.f32`);
    const filters = existsSync(filterFile) ? loadWhisperMelFilters(opts.assetsDir, cfg.nMels) : undefined;
    const sessionOpts: ort.InferenceSession.SessionOptions = {
      intraOpNumThreads: opts.threads ?? 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: "all",
    };
    const encoder = await WhisperEncoder.load(cfg.encoderPath, sessionOpts);
    const decoder = await ort.InferenceSession.create(cfg.decoderPath, sessionOpts).catch(async (e: unknown) => {
      await encoder.release();
      throw e;
    });
    const aligner = opts.alignWords === false ? null : await WhisperAligner.load(cfg.decoderPath, sessionOpts);
    return new WhisperEngine(cfg, tokenizer, encoder, decoder, filters, opts, aligner);
  }

  /**
   * Runs the encoder on one ≤30-s window, on `cores` threads where the wider encoder is loaded; a
   * `shortWindow` is shorter than 30 s where the audio is short and the encoder allows it. `signal`
   * stops it between the encoder's stages.
   */
  private async encode(window: Float32Array, decoding: WhisperDecodingOptions = this.decoding, cores = 1, shortWindow = false, signal?: AbortSignal): Promise<ort.Tensor> {
    const padToSamples = shortWindow && this.variableWindow ? encoderWindowSamples(window.length, decoding.shortestWindowS) : WHISPER_CHUNK_SAMPLES;
    const mel = whisperLogMel(window, this.cfg.nMels, { padToSamples, filters: this.melFilters, tail: decoding.padding });
    const input = new ort.Tensor("float32", mel.data, [1, this.cfg.nMels, mel.nFrames]);
    const wide = this.wideEncoderFor(cores);
    if (wide) return (await wide.run({ input_features: input })).last_hidden_state!;
    return this.encoder.run(input, signal);
  }

  /** The wider encoder (the whole file, in one call) when `cores` asks for more threads and it is loaded; else null. */
  private wideEncoderFor(cores: number): ort.InferenceSession | null {
    const base = this.opts.threads ?? 1;
    const want = Math.min(Math.floor(cores), MAX_WIDE_THREADS);
    if (!(want > base)) return null;
    // One wider session per engine, as wide as the first call that asked (the pool always asks for
    // all its threads): a second width would hold a second copy of the encoder.
    if (!this.wideEncoder) {
      const entry: NonNullable<WhisperEngine["wideEncoder"]> = { cores: want, ready: null, session: Promise.resolve(null) };
      entry.session = ort.InferenceSession.create(this.cfg.encoderPath, wideSessionOptions(want))
        .then((s) => (entry.ready = s))
        .catch(() => null); // stays on the one-thread encoder
      this.wideEncoder = entry;
    }
    return this.wideEncoder.ready;
  }

  /** The candidate languages' probabilities, and the detection call's cache (its cross-attention part serves the window's decode). */
  private async languageProbs(hidden: ort.Tensor, candidates?: string[]): Promise<{ probabilities: LanguageProbability[]; cache: DecoderCache }> {
    const allowed = (candidates && candidates.length > 0 ? candidates : this.info.languages).filter((l) =>
      this.tokenizer.languageTokens.has(l),
    );
    if (allowed.length === 0) throw new RangeError(`none of the languages [${candidates}] is known to this model`);
    const { logits, cache } = await this.decoder.run([this.tokenizer.sot], hidden, null);
    const row = new Float32Array(allowed.length);
    allowed.forEach((l, i) => (row[i] = logits[this.tokenizer.languageToken(l)]));
    const lp = logSoftmax(row);
    const probabilities = allowed
      .map((language, i) => ({ language, probability: Math.exp(lp[i]) }))
      .sort((a, b) => b.probability - a.probability);
    return { probabilities, cache };
  }

  /** Probabilities of the candidate languages (all of the model's when absent) on the first 30 s. */
  async detectLanguage(audio: Float32Array, candidates?: string[]): Promise<LanguageProbability[]> {
    checkAudio(audio);
    if (!this.cfg.multilingual) return [{ language: "en", probability: 1 }];
    return (await this.languageProbs(await this.encode(audio.subarray(0, WHISPER_CHUNK_SAMPLES)), candidates)).probabilities;
  }

  /** `signal` stops the work before the next encoder or decoder call (the promise rejects with its reason). */
  async transcribe(request: TranscribeRequest, signal?: AbortSignal): Promise<WhisperTranscribeResult> {
    return this.transcribeWith(request, signal, { buffer: request.audio.buffer, windows: new Map(), greedy: new WeakMap() });
  }

  private async transcribeWith(request: TranscribeRequest, signal: AbortSignal | undefined, encoded: EncodedWindows): Promise<WhisperTranscribeResult> {
    const req = request as WhisperTranscribeRequest;
    checkAudio(req.audio);
    const task = req.task ?? this.opts.task ?? "transcribe";
    if (task === "translate") {
      if (!this.cfg.multilingual) throw new RangeError("this model cannot translate (English-only)");
      if (req.targetLanguage !== undefined && req.targetLanguage !== "en") {
        throw new RangeError(`Whisper translates into English only, not "${req.targetLanguage}"`);
      }
    }
    const lead = usableLead(this.tokenizer, req);
    if (req.lead && !lead) return this.transcribeWith(withoutLead(req), signal, encoded);
    const fallbackLanguage = req.languages?.[0] ?? this.info.languages[0] ?? "en";
    if (req.audio.length === 0 || req.speech === false) return { ...NO_SPEECH, language: fallbackLanguage };
    if (this.opts.vad && !(await this.opts.vad(req.audio))) return { ...NO_SPEECH, language: fallbackLanguage };

    const decoding = { ...this.decoding, ...req.decoding };
    if (peak(req.audio) < decoding.silencePeak) return { ...NO_SPEECH, language: fallbackLanguage };
    const temperatures = req.partial || req.noFallback ? [0] : decoding.temperatures.length > 0 ? decoding.temperatures : [0];
    const asked = req.beamSize !== undefined && Number.isInteger(req.beamSize) && req.beamSize >= 1 ? Math.min(req.beamSize, 16) : undefined;
    const beamSize = req.partial ? 1 : (asked ?? decoding.beamSize);
    const shortWindow = req.lowLatency === true || (req.partial && req.shortPartialWindows === true && decoding.shortPartialWindows);
    let context: number[] = [];
    /** The text before this audio the decode is prompted with (dropped when in another language). */
    let previousText = req.previousText;

    const segments: TimedSegment[] = [];
    const stats: WhisperTranscribeResult["stats"] = [];
    let language: string | undefined;
    let languageProbabilities: LanguageProbability[] | undefined;
    let weighted = 0;
    let weight = 0;
    let seek = 0;
    /** The first segment of this request the prompt may hold (0: the request's previous text too). */
    let promptFrom = 0;
    /** This window's encoder window is short (false while a short window's silence is checked in 30 s). */
    let windowShort = shortWindow;
    /** Windows resumed after a repetition loop so far (see `resumePoint`). */
    let resumes = 0;
    while (seek < req.audio.length) {
      const window = req.audio.subarray(seek, seek + WHISPER_CHUNK_SAMPLES);
      const offset = seek / WHISPER_SAMPLE_RATE;
      const windowSeconds = window.length / WHISPER_SAMPLE_RATE;
      await stopIfAborted(signal);
      const hidden = await this.encodeOnce(encoded, window, decoding, req.cores ?? 1, windowShort, signal);
      await stopIfAborted(signal);
      /** The cross-attention caches the language detection computed on this window's encoder output. */
      let detectedCross: DecoderCache["cross"] | undefined;
      if (language === undefined) {
        const chosen = await this.chooseLanguage(hidden, req.languages, req.languagePrior);
        // A final whose language the detection leaves uncertain is decoded in its two likeliest.
        const rival = seek === 0 && !req.partial && chosen.posterior ? rivalLanguage(chosen.posterior) : undefined;
        if (rival !== undefined) return this.inLikelierLanguage(req, chosen.probabilities!, [chosen.posterior![0]!, chosen.posterior![1]!], signal, encoded);
        language = chosen.language;
        languageProbabilities = chosen.probabilities;
        detectedCross = chosen.cross;
        // Detected in another language than the context's: decoded without it (see `contextLanguage`).
        if (chosen.probabilities && req.contextLanguage !== undefined && req.contextLanguage !== language) {
          if (lead) return this.transcribeWith(outOfContext(req), signal, encoded);
          previousText = undefined;
        }
        context = contextPrompt(this.tokenizer, previousText, req, language);
      }
      const bias = vocabularyBias(this.tokenizer, req, language);
      // A lead's window has timestamps only when its prefix has them; its words are timed by the alignment.
      const led = lead !== null && seek === 0 ? lead : null;
      const timestamps = decoding.timestamps && (!led || led.timed);
      const sot = this.cfg.multilingual ? this.tokenizer.sotSequence(language, task, timestamps) : this.tokenizer.sotSequence(undefined, undefined, timestamps);
      const prefix = led ? led.tokens : [];
      const prompt = [...context, ...sot, ...prefix];
      const filters = new LogitFilters({
        tokenizer: this.tokenizer,
        timestamps,
        suppressTokens: this.cfg.suppressTokens,
        beginSuppressTokens: this.cfg.beginSuppressTokens ?? [...this.tokenizer.encode(" "), this.tokenizer.eot],
        maxInitialTimestampIndex: this.cfg.maxInitialTimestampIndex,
        ...(led?.timed ? { minInitialTimestampIndex: Math.round(led.seconds / 0.02) } : {}),
        ...(bias.length > 0 ? { bias } : {}),
      });
      const sampleLen = Math.min(224, Math.floor(this.cfg.maxTargetPositions / 2));
      /** Seconds of the window's audio after the lead (the lead's words are not decoded again). */
      const newSeconds = windowSeconds - (led?.seconds ?? 0);
      const budget = Math.min(sampleLen, this.cfg.maxTargetPositions - prompt.length, Math.ceil(newSeconds * decoding.maxTokensPerSecond) + TOKEN_SLACK);
      const random = mulberry32(decoding.seed + seek);
      /**
       * Where a result cut out of a loop resumes, and the tokens it keeps: after the text before the
       * loop, timed at the speaking rate from its segment's start (the loop left no closing
       * timestamp), else after its last whole segment; null when neither is far enough into the
       * window to make progress, or the request has had its resumes.
       */
      const resumePoint = (res: SearchResult): { tokens: number[]; samples: number } | null => {
        if (!res.looped || resumes >= (req.partial ? MAX_LOOP_RESUMES_PARTIAL : MAX_LOOP_RESUMES)) return null;
        const tk = this.tokenizer;
        const usable = (seconds: number) => seconds >= MIN_LOOP_RESUME_S && seconds < windowSeconds - MIN_LOOP_RESUME_S / 2;
        const closed = lastClosedSegment(res.tokens, this.isTimestamp);
        const opener = res.tokens.findIndex((t, i) => i > closed && tk.isTimestamp(t));
        const text = opener >= 0 ? res.tokens.slice(opener + 1).filter((t) => !tk.isTimestamp(t)) : [];
        if (text.length > 0) {
          const weight = tk.decode(text).split(/\s+/).filter((w) => w !== "").reduce((n, w) => n + spokenWeight(w), 0);
          const end = Math.round((tk.timestampSeconds(res.tokens[opener]!) + SECONDS_PER_SPOKEN_WEIGHT * weight) / 0.02) * 0.02;
          if (usable(end)) return { tokens: [...res.tokens, tk.timestampBegin + Math.round(end / 0.02)], samples: Math.round(end * WHISPER_SAMPLE_RATE) };
        }
        if (closed < 0) return null;
        const seconds = tk.timestampSeconds(res.tokens[closed]!);
        return usable(seconds) ? { tokens: res.tokens.slice(0, closed + 1), samples: Math.round(seconds * WHISPER_SAMPLE_RATE) } : null;
      };
      // Every attempt of this window starts with the same first call (prompt and encoder output).
      let first: Promise<DecoderStep> | undefined;
      const firstCall = () => (first ??= this.decoder.run(prompt, hidden, detectedCross ? this.decoder.startingFrom(detectedCross) : null));
      // Temperature fallback as faster-whisper does it: stop at the first result that passes the
      // checks (or is silence); when none does, keep the likeliest of those that are not too
      // repetitive (of all, if every one is). A low-latency request, and a window of a word or two
      // (`lowLogprobFallbackMinS`), fall back for repetition only: a low average log-probability
      // alone is common there and would cost up to five more decodes.
      const tried: { result: SearchResult; ratio: number; temperature: number; overrun: boolean; dense: boolean }[] = [];
      let chosen: (typeof tried)[number] | undefined;
      let passed = true;
      // Everything a temperature-0 decode depends on besides the encoder output (the filters follow
      // from the prompt's tokens, the lead's timing and the bias).
      const greedyKey = JSON.stringify([prompt, led ? null : context.length, budget, beamSize, led?.timed ? led.seconds : null, bias]);
      const greedy = encoded.greedy.get(hidden) ?? new Map<string, SearchResult>();
      encoded.greedy.set(hidden, greedy);
      for (const t of temperatures) {
        const result =
          (t === 0 ? greedy.get(greedyKey) : undefined) ??
          (await decodeWindow(this.decoder, hidden, filters, this.tokenizer.eot, this.tokenizer.noSpeech, {
            prompt, sotIndex: led ? null : context.length, sampleLen: budget, beamSize: t > 0 ? 1 : beamSize, bestOf: beamSize > 1 ? decoding.bestOf : 1, temperature: t, random, signal, firstCall,
            loopChecks: this.loopChecks,
            tooDense: (tokens) => tooDense(this.tokenizer.decode(tokens.filter((x) => x < this.tokenizer.eot)), newSeconds),
          }));
        if (t === 0) greedy.set(greedyKey, result);
        // Stopped by the per-second budget (not by Whisper's own limit): a runaway decode.
        const overrun = budget < sampleLen && result.tokens.length >= budget;
        // More words than the window's new audio can hold (a digit run going on past what was
        // said): made up, as a loop is, though no unit repeats.
        const dense = tooDense(this.tokenizer.decode(result.tokens.filter((x) => x < this.tokenizer.eot)), newSeconds);
        const attempt = { result, ratio: compressionRatio(this.tokenizer.decode(result.tokens)), temperature: t, overrun, dense };
        tried.push(attempt);
        const lowLogprob = result.avgLogprob < decoding.logProbThreshold;
        // A loop after whole segments is not retried: the window resumes after those segments.
        const unresumable = result.looped && resumePoint(result) === null;
        const unsure = lowLogprob && req.lowLatency !== true && newSeconds >= decoding.lowLogprobFallbackMinS;
        let fallback = attempt.ratio > decoding.compressionRatioThreshold || overrun || dense || unresumable || unsure;
        if (result.noSpeechProb > decoding.noSpeechThreshold && lowLogprob) fallback = false; // silence
        if (!fallback) {
          chosen = attempt;
          break;
        }
      }
      if (!chosen) {
        passed = false;
        // A result cut out of a loop keeps only what came before the loop: any whole result that
        // passed the repetition checks is preferred to it (the audio after the loop is heard there).
        // A result denser than speech comes after both, though still before a repetitive one.
        const sound = tried.filter((a) => a.ratio <= decoding.compressionRatioThreshold && !a.overrun);
        const fit = sound.filter((a) => !a.dense);
        const whole = fit.filter((a) => !a.result.looped);
        const pool = [whole, fit, sound, tried].find((p) => p.length > 0)!;
        const best = pool.reduce((a, b) => (b.result.avgLogprob > a.result.avgLogprob ? b : a));
        chosen = { ...best, temperature: tried[tried.length - 1].temperature }; // the last one tried, as faster-whisper reports
      }
      const { ratio, temperature } = chosen;
      const r = chosen.result;
      // Silence: openai/whisper's and faster-whisper's rule, and only it. A stricter one (no-speech
      // above half the threshold once every temperature failed) dropped real speech the VAD had
      // found: a short reply over a telephone line ("Go back.", no-speech 0.31).
      const lowLogprob = r.avgLogprob < decoding.logProbThreshold;
      const silent = r.noSpeechProb > decoding.noSpeechThreshold && lowLogprob;
      // A final's short window that reads as silence is encoded again in 30 s, as Whisper was
      // trained: a lone short word (espeak-ng's "Yes.", 0.54 s in a 15-s window) can read as silence
      // there and not in 30 s. Partials are not checked (their final will be). Real silence costs
      // one 30-s decode more than it did in a short window alone (the VAD keeps most of it away).
      if (silent && windowShort && !req.partial) {
        windowShort = false;
        if (seek === 0) language = undefined; // the request's first window: its language is chosen again too
        continue;
      }
      windowShort = shortWindow;
      stats.push({ sumLogprob: r.sumLogprob, avgLogprob: r.avgLogprob, noSpeechProb: r.noSpeechProb, compressionRatio: ratio, temperature, passed });
      const repetitive = ratio > decoding.compressionRatioThreshold || chosen.overrun;
      // A loop after whole segments: those are kept, and the window's audio after them is decoded next.
      const resume = silent || repetitive ? null : resumePoint(r);
      const tokens = resume ? resume.tokens : r.tokens;
      if (resume) resumes++;
      if (!silent && !repetitive) {
        const text = tokens.filter((t) => t < this.tokenizer.eot);
        const sotPlain = this.cfg.multilingual ? this.tokenizer.sotSequence(language, task, false) : this.tokenizer.sotSequence(undefined, undefined, false);
        const times = this.aligner && (await this.aligner.tokenTimes(sotPlain, [...(led?.textTokens ?? []), ...text], this.tokenizer.eot, (await first!).cache.cross, window, signal));
        const windowSegments = tokensToSegments(this.tokenizer, tokens, r.tokenLogprobs, offset - (led?.seconds ?? 0), windowSeconds, language, afterPrefix(times || null, led?.textTokens.length ?? 0));
        segments.push(...(led ? ledSegments(windowSegments) : windowSegments));
        weighted += r.avgLogprob * tokens.length;
        weight += tokens.length;
      }
      // The next window is prompted with the text so far (condition_on_previous_text), unless this one
      // needed a high temperature: then the prompt restarts, as faster-whisper's prompt_reset_on_temperature.
      if (temperature > PROMPT_RESET_TEMPERATURE) promptFrom = segments.length;
      const previous = promptFrom === 0 ? [previousText ?? "", ...segments.map((x) => x.text)] : segments.slice(promptFrom).map((x) => x.text);
      context = contextPrompt(this.tokenizer, previous.join(" "), req, language);
      seek += resume ? resume.samples : seekAdvance(this.tokenizer, tokens, window.length);
    }
    const text = segments.map((s) => s.text).join(" ").trim();
    const words: WordTiming[] = segments.flatMap((s) => s.words);
    const lang = language ?? fallbackLanguage;
    const detected = languageProbabilities ? { languageProbabilities } : {};
    // A led decode that heard nothing after its prefix, or only the prefix's words again, is decoded without the lead.
    if (lead && (!/[\p{L}\p{N}]/u.test(text) || promptLed(text, lead.text, (req.audio.length - lead.samples) / WHISPER_SAMPLE_RATE))) {
      return this.transcribeWith(withoutLead(req), signal, encoded);
    }
    // Punctuation alone (". . . .", Whisper's answer to some noise) is no speech either. A final's
    // prompt can tip a short reply the VAD heard over the no-speech line ("Yes." after a few turns):
    // it is silence only if it is silence unprompted too.
    if (!/[\p{L}\p{N}]/u.test(text)) {
      if (previousText && !req.partial && !req.noFallback) return this.transcribeWith({ ...req, previousText: undefined } as TranscribeRequest, signal, encoded);
      return { ...NO_SPEECH, language: lang, stats, ...detected };
    }
    // Whisper given audio it cannot make out may write its prompt's last words again ("1, 2, 3, 4"
    // for a noisy "Billing." after "One two three four."), continue it, or make up more words than
    // the audio holds: such a result is decoded again unprompted.
    if (!lead && previousText && promptLed(text, previousText, req.audio.length / WHISPER_SAMPLE_RATE)) {
      return this.transcribeWith({ ...req, previousText: undefined } as TranscribeRequest, signal, encoded);
    }
    const confidence = Math.round(Math.exp(weight > 0 ? weighted / weight : 0) * 1000) / 1000;
    return { text, language: lang, confidence, words, noSpeech: false, segments, stats, ...detected };
  }

  /**
   * The request decoded in each of two languages, the likelier decode kept (see `byDecode`), with
   * the detection's probabilities reweighted by the decodes. A decode in the context's language
   * keeps the context; one in another is decoded without it.
   */
  private async inLikelierLanguage(
    req: WhisperTranscribeRequest,
    detected: LanguageProbability[],
    candidates: LanguageProbability[],
    signal: AbortSignal | undefined,
    encoded: EncodedWindows,
  ): Promise<WhisperTranscribeResult> {
    const decodes: (LanguageDecode & { result: WhisperTranscribeResult; req: TranscribeRequest })[] = [];
    // The languages are weighed on their temperature-0 decodes (a sampled decode's log-probability
    // says little about its language); only the winner falls back to higher temperatures, where
    // its decode failed the checks. Every language's whole fallback cost a short noisy reply up
    // to a dozen decodes, seconds of lag, for a choice made on sampled text.
    for (const { language, probability } of candidates) {
      const inContext = req.contextLanguage === undefined || req.contextLanguage === language;
      const asked = { ...(inContext ? req : outOfContext(req)), languages: [language] } as WhisperTranscribeRequest;
      const result = await this.transcribeWith({ ...asked, decoding: { ...asked.decoding, temperatures: [0] } } as TranscribeRequest, signal, encoded);
      decodes.push({ language, probability, sumLogprob: result.stats.reduce((s, x) => s + x.sumLogprob, 0), result, req: asked });
    }
    const best = byDecode(decodes);
    const fallback = !req.partial && !req.noFallback && best.result.stats.some((x) => !x.passed);
    const result = fallback ? await this.transcribeWith(best.req, signal, encoded) : best.result;
    return { ...result, languageProbabilities: reweighted(detected, decodes) };
  }

  /** The encoder's output for a window of the request's audio, computed once per request (see `EncodedWindows`). */
  private async encodeOnce(encoded: EncodedWindows, window: Float32Array, decoding: WhisperDecodingOptions, cores: number, shortWindow: boolean, signal?: AbortSignal): Promise<ort.Tensor> {
    if (window.buffer !== encoded.buffer) return this.encode(window, decoding, cores, shortWindow, signal);
    const key = `${window.byteOffset}:${window.length}:${shortWindow}:${decoding.shortestWindowS}:${decoding.padding}`;
    const hit = encoded.windows.get(key);
    if (hit) return hit;
    const hidden = await this.encode(window, decoding, cores, shortWindow, signal);
    encoded.windows.set(key, hidden);
    return hidden;
  }

  /** The language of a window: its own detection, plus the stream's earlier evidence when given (`posterior`, likeliest first). */
  private async chooseLanguage(
    hidden: ort.Tensor,
    languages?: string[],
    prior?: Record<string, number>,
  ): Promise<{ language: string; probabilities?: LanguageProbability[]; posterior?: LanguageProbability[]; cross?: DecoderCache["cross"] }> {
    if (!this.cfg.multilingual) return { language: "en" };
    if (languages && languages.length === 1) {
      this.tokenizer.languageToken(languages[0]);
      return { language: languages[0] };
    }
    const { probabilities, cache } = await this.languageProbs(hidden, languages);
    const posterior = withPriorProbabilities(probabilities, prior);
    return { language: posterior[0]!.language, probabilities, posterior, cross: cache.cross };
  }

  async dispose(): Promise<void> {
    const wide = await this.wideEncoder?.session;
    this.wideEncoder = null;
    await wide?.release();
    await this.encoder.release();
    await this.decoderSession.release();
    await this.aligner?.release();
  }
}
