/** Language lists used by the catalogue. */
import { WHISPER_LANGUAGES as TOKENIZER_LANGUAGES } from "../tokenizer/whisper.ts";

/** The languages Whisper (multilingual) transcribes, in its tokenizer's order, Cantonese last. */
export const WHISPER_LANGUAGES: string[] = [...TOKENIZER_LANGUAGES];

/** Whisper without Cantonese (models before large-v3). */
export const WHISPER_LANGUAGES_99 = WHISPER_LANGUAGES.filter((l) => l !== "yue");

/** solaria-3's published language list. */
export const SOLARIA_3_LANGUAGES =
  "ar cs da de el en es fa fi fr hi hu id it ja ko mk ms nl pl pt ro ru sv th tl tr vi zh".split(" ");

/** solaria-1's published language list (99 languages; Cantonese is accepted as `yue`). */
export const SOLARIA_1_LANGUAGES = [...WHISPER_LANGUAGES_99, "yue"];

/** Translation targets published for the service. */
export const TRANSLATION_TARGETS = (
  "af am ar as be bg bn ca da de en es fa fr gl id it ja km ko ln lo ms my ne nl no ps pt ro ru so sv th vi wo yo zh"
).split(" ");
