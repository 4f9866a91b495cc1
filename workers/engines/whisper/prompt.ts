/** Whisper's prompt and vocabulary bias: previous text and custom vocabulary as prompt tokens, vocabulary phrases as logit bonuses. */
import type { WhisperTokenizer } from "../../tokenizer/whisper.ts";
import type { TranscribeRequest } from "../types.ts";
import type { PhraseBias } from "./search.ts";

/** Prompt tokens after <|startofprev|>: openai/whisper's n_text_ctx / 2 − 1. */
const MAX_PROMPT_TOKENS = 223;
/** Of those, at most this many for the custom vocabulary; previous text fills the rest. */
const MAX_VOCABULARY_TOKENS = 111;
/** Logit bonus of a vocabulary phrase's next token at intensity 1 (0.5, the default: half of it). */
const VOCABULARY_BIAS = 3;

/**
 * Whisper's prompt (openai/whisper `initial_prompt` and `condition_on_previous_text`):
 * <|startofprev|>, the vocabulary phrases (kept first, like faster-whisper's hotwords; ended by a
 * full stop, without which English-only models take the list for words already spoken and skip
 * them), then the end of the previous text, at most MAX_PROMPT_TOKENS in all.
 */
export function contextPrompt(tokenizer: WhisperTokenizer, previousText: string | undefined, req: TranscribeRequest, language: string): number[] {
  const phrases = vocabularyFor(req, language).map((v) => v.phrase.trim()).filter((p) => p !== "");
  const vocabulary = phrases.length > 0 ? tokenizer.encode(` ${phrases.join(", ")}.`).slice(0, MAX_VOCABULARY_TOKENS) : [];
  const previous = (previousText ?? "").trim();
  const room = MAX_PROMPT_TOKENS - vocabulary.length;
  const history = previous !== "" ? tokenizer.encode(` ${previous}`).slice(-room) : [];
  if (vocabulary.length + history.length === 0) return [];
  return [tokenizer.sotPrev, ...vocabulary, ...history];
}

/**
 * The vocabulary entries that apply to a decode in `language` (an entry naming another language
 * does not), strongest first (the prompt's token budget drops the weakest), entries of intensity 0
 * left out.
 */
export function vocabularyFor(req: TranscribeRequest, language: string): NonNullable<TranscribeRequest["vocabulary"]> {
  return (req.vocabulary ?? [])
    .filter((v) => v.intensity > 0 && (v.language === undefined || v.language === language))
    .map((v, i) => ({ v, i }))
    .sort((a, b) => b.v.intensity - a.v.intensity || a.i - b.i)
    .map(({ v }) => v);
}

/** The entries (and their pronunciations) as phrases favoured while decoding, by their intensity. */
export function vocabularyBias(tokenizer: WhisperTokenizer, req: TranscribeRequest, language: string): PhraseBias[] {
  return vocabularyFor(req, language).flatMap((v) =>
    [v.phrase, ...(v.pronunciations ?? [])]
      .map((p) => p.trim())
      .filter((p) => p !== "")
      .map((p) => ({ tokens: tokenizer.encode(` ${p}`), bonus: VOCABULARY_BIAS * Math.min(1, v.intensity) })),
  );
}
