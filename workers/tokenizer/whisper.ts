/**
 * Whisper's tokenizer: the `gpt2` (English-only) or `multilingual` byte-level BPE plus Whisper's
 * special tokens, in the order openai/whisper assigns them right after the BPE ranks.
 */
import { join } from "node:path";
import { BytePairEncoding, GPT2_PATTERN, loadTiktokenRanks } from "./bpe.ts";

/** Whisper's language codes in token order (the first 99 for most models, 100 with `yue`). */
export const WHISPER_LANGUAGES = [
  "en", "zh", "de", "es", "ru", "ko", "fr", "ja", "pt", "tr", "pl", "ca", "nl", "ar", "sv", "it", "id", "hi",
  "fi", "vi", "he", "uk", "el", "ms", "cs", "ro", "da", "hu", "ta", "no", "th", "ur", "hr", "bg", "lt", "la",
  "mi", "ml", "cy", "sk", "te", "fa", "lv", "bn", "sr", "az", "sl", "kn", "et", "mk", "br", "eu", "is", "hy",
  "ne", "mn", "bs", "kk", "sq", "sw", "gl", "mr", "pa", "si", "km", "sn", "yo", "so", "af", "oc", "ka", "be",
  "tg", "sd", "gu", "am", "yi", "lo", "uz", "fo", "ht", "ps", "tk", "nn", "mt", "sa", "lb", "my", "bo", "tl",
  "mg", "as", "tt", "haw", "ln", "ha", "ba", "jw", "su", "yue",
] as const;

/** Number of timestamp tokens: <|0.00|> … <|30.00|> in 0.02 s steps. */
const WHISPER_TIMESTAMP_COUNT = 1501;
/** Seconds per timestamp step. */
const WHISPER_TIME_PRECISION = 0.02;

export interface WhisperTokenizerOptions {
  /** `multilingual` (default) or `gpt2` (English-only models). */
  encoding?: "multilingual" | "gpt2";
  /** How many language tokens the model has: 99 (default) or 100 (large-v3 vocabulary of 51866). */
  numLanguages?: number;
}

export type WhisperTask = "transcribe" | "translate";

/** Whisper tokenizer with named special-token ids. */
export class WhisperTokenizer {
  readonly eot: number;
  readonly sot: number;
  readonly translate: number;
  readonly transcribe: number;
  readonly sotLm: number;
  readonly sotPrev: number;
  readonly noSpeech: number;
  readonly noTimestamps: number;
  readonly timestampBegin: number;
  /** Language code → token id, in Whisper's order. */
  readonly languageTokens: ReadonlyMap<string, number>;
  private readonly languageById = new Map<number, string>();

  constructor(readonly bpe: BytePairEncoding, readonly languages: readonly string[]) {
    const id = (t: string) => {
      const v = bpe.specialId(t);
      if (v === undefined) throw new Error(`special token ${t} missing`);
      return v;
    };
    this.eot = id("<|endoftext|>");
    this.sot = id("<|startoftranscript|>");
    this.translate = id("<|translate|>");
    this.transcribe = id("<|transcribe|>");
    this.sotLm = id("<|startoflm|>");
    this.sotPrev = id("<|startofprev|>");
    this.noSpeech = id("<|nospeech|>");
    this.noTimestamps = id("<|notimestamps|>");
    this.timestampBegin = id("<|0.00|>");
    const langs = new Map<string, number>();
    for (const code of languages) {
      const tok = id(`<|${code}|>`);
      langs.set(code, tok);
      this.languageById.set(tok, code);
    }
    this.languageTokens = langs;
  }

  /** Loads `<encoding>.tiktoken` from a directory (e.g. `<MODELS_DIR>/whisper-assets`). */
  static load(assetsDir: string, opts: WhisperTokenizerOptions = {}): WhisperTokenizer {
    const encoding = opts.encoding ?? "multilingual";
    return WhisperTokenizer.fromRanks(loadTiktokenRanks(join(assetsDir, `${encoding}.tiktoken`)), opts.numLanguages);
  }

  /** Builds the tokenizer from parsed ranks, appending Whisper's special tokens. */
  static fromRanks(ranks: Map<string, number>, numLanguages = 99): WhisperTokenizer {
    if (!Number.isInteger(numLanguages) || numLanguages < 1 || numLanguages > WHISPER_LANGUAGES.length) {
      throw new RangeError(`numLanguages must be 1..${WHISPER_LANGUAGES.length}`);
    }
    const languages = WHISPER_LANGUAGES.slice(0, numLanguages);
    const specials = [
      "<|endoftext|>",
      "<|startoftranscript|>",
      ...languages.map((l) => `<|${l}|>`),
      "<|translate|>",
      "<|transcribe|>",
      "<|startoflm|>",
      "<|startofprev|>",
      "<|nospeech|>",
      "<|notimestamps|>",
      ...Array.from({ length: WHISPER_TIMESTAMP_COUNT }, (_, i) => `<|${(i * WHISPER_TIME_PRECISION).toFixed(2)}|>`),
    ];
    const table: Record<string, number> = {};
    specials.forEach((s, i) => (table[s] = ranks.size + i));
    return new WhisperTokenizer(new BytePairEncoding(ranks, table, GPT2_PATTERN), languages);
  }

  /** Vocabulary size (51865 for the multilingual encoding with 99 languages). */
  get vocabSize(): number {
    return (this.cachedVocabSize ??= this.bpe.vocabSize);
  }
  private cachedVocabSize?: number;

  /** Encodes ordinary text (special-token text is not interpreted). */
  encode(text: string): number[] {
    return this.bpe.encode(text);
  }

  /** Decodes ids, dropping every special token (including timestamps); unknown ids throw. */
  decode(ids: readonly number[]): string {
    const size = this.vocabSize;
    return this.bpe.decode(ids.filter((t) => t < this.eot || t >= size || !Number.isInteger(t)));
  }

  /** Decodes ids keeping special tokens, e.g. `<|0.00|> Hello<|1.20|>`. */
  decodeWithSpecials(ids: readonly number[]): string {
    return this.bpe.decode(ids);
  }

  /** Whether ordinary token `id` decodes to punctuation and spaces only (", ", "."): memoized. */
  isPunctuation(id: number): boolean {
    if (id >= this.eot || id < 0) return false;
    let p = this.punctuation.get(id);
    if (p === undefined) {
      p = /^[\s\p{P}]+$/u.test(this.bpe.decode([id]));
      this.punctuation.set(id, p);
    }
    return p;
  }
  private readonly punctuation = new Map<number, boolean>();

  isTimestamp(id: number): boolean {
    return id >= this.timestampBegin && id < this.timestampBegin + WHISPER_TIMESTAMP_COUNT;
  }

  /** Seconds of a timestamp token. */
  timestampSeconds(id: number): number {
    if (!this.isTimestamp(id)) throw new RangeError(`token ${id} is not a timestamp`);
    return Math.round((id - this.timestampBegin) * WHISPER_TIME_PRECISION * 100) / 100;
  }

  /** Token id of a language code; throws for a language the vocabulary lacks. */
  languageToken(code: string): number {
    const t = this.languageTokens.get(code);
    if (t === undefined) throw new RangeError(`language "${code}" has no token in this vocabulary`);
    return t;
  }

  /** Language code of a token id, or undefined. */
  languageOf(id: number): string | undefined {
    return this.languageById.get(id);
  }

  /**
   * The decoder prompt: <|startoftranscript|> [<|lang|>] [<|task|>] [<|notimestamps|>]. English-only
   * models take neither a language nor a task token (openai/whisper passes both as None for them).
   */
  sotSequence(language: string | undefined, task: WhisperTask | undefined, timestamps: boolean): number[] {
    const seq = [this.sot];
    if (language !== undefined) seq.push(this.languageToken(language));
    if (task !== undefined) seq.push(task === "translate" ? this.translate : this.transcribe);
    if (!timestamps) seq.push(this.noTimestamps);
    return seq;
  }
}
