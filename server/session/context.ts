/**
 * Decoding context a session hands to its engine with every transcription: the custom vocabulary
 * of its options and the text it has already committed on the channel (engines that take a prompt,
 * such as Whisper, condition on both).
 */
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import type { TranscribeRequest } from "../../workers/contract/types.ts";
import type { AppliedOptions } from "../options/defaults.ts";

/** Characters of committed text handed on as context (Whisper keeps at most 223 tokens of it). */
const PREVIOUS_TEXT_CHARS = 600;

/** A vocabulary entry as the engines take it (through the coordinator's interface). */
type VocabularyEntry = NonNullable<TranscribeRequest["vocabulary"]>[number];
const DEFAULT_INTENSITY = 0.5;

/** The session's custom vocabulary as engine entries (empty unless `custom_vocabulary` is on). */
export function sessionVocabulary(options: AppliedOptions): VocabularyEntry[] {
  const rp = options.realtime_processing;
  if (!rp?.custom_vocabulary || !rp.custom_vocabulary_config) return [];
  const intensity = rp.custom_vocabulary_config.default_intensity ?? DEFAULT_INTENSITY;
  return rp.custom_vocabulary_config.vocabulary.map((v) =>
    typeof v === "string"
      ? { phrase: v, intensity }
      : {
          phrase: v.value,
          intensity: v.intensity ?? intensity,
          ...(v.pronunciations ? { pronunciations: v.pronunciations } : {}),
          ...(v.language ? { language: v.language } : {}),
        },
  );
}

/**
 * An utterance as the prompt gives it: as transcribed, unless it is written all in capitals
 * (at least two words of two letters or more, no lowercase letter), which then become sentence
 * case. Whisper copies the style of its prompt: after a shouted "ASK NOT!", whisper-base (and
 * faster-whisper on the same weights) writes the next utterances of jfk.wav in capitals too
 * ("ASK WHAT YOU CAN DO FOR YOUR COUNTRY"; "Ask what you can do for your country!" with the
 * prompt in sentence case). The utterance itself is delivered as transcribed.
 */
export function promptCase(text: string): string {
  if (/\p{Ll}/u.test(text)) return text;
  const words = text.match(/\p{Lu}{2,}/gu);
  if (!words || words.length < 2) return text;
  return text.toLowerCase().replace(/(^|[.!?]\s+)(\p{Ll})/gu, (_, before: string, letter: string) => before + letter.toUpperCase());
}

/**
 * The language of the channel's latest utterance with text, which its decoding context is in
 * (`previousText`); undefined before any, or when its language is unknown.
 */
export function contextLanguage(utterances: readonly Utterance[], channel: number): string | undefined {
  for (let i = utterances.length - 1; i >= 0; i--) {
    const u = utterances[i]!;
    if (u.channel === channel && u.text !== "") return u.language === "" ? undefined : u.language;
  }
  return undefined;
}

/**
 * An utterance belongs to a context in `language` (an utterance or a context of unknown language
 * belongs to any). Whisper copies its prompt's script and style: prompted with a short reply it
 * misheard as Japanese, it writes the next English replies in katakana, so a context holds one
 * language, and an engine that decodes in another leaves it out (`TranscribeRequest.contextLanguage`).
 */
export const inContext = (u: { language: string }, language: string | undefined) => language === undefined || u.language === "" || u.language === language;

/**
 * The end of the text committed on `channel` so far (empty when nothing is): its latest utterances
 * in `language` (by default the last one's: `contextLanguage`), back to one in another.
 */
export function previousText(utterances: readonly Utterance[], channel: number, language = contextLanguage(utterances, channel)): string {
  let text = "";
  for (let i = utterances.length - 1; i >= 0 && text.length < PREVIOUS_TEXT_CHARS; i--) {
    const u = utterances[i]!;
    if (u.channel !== channel || u.text === "") continue;
    if (!inContext(u, language)) break;
    text = text === "" ? promptCase(u.text) : `${promptCase(u.text)} ${text}`;
  }
  return text.length > PREVIOUS_TEXT_CHARS ? text.slice(text.length - PREVIOUS_TEXT_CHARS).replace(/^\S*\s/, "") : text;
}
