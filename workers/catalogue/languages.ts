/** Language lists used by the catalogue. */

/** The languages Whisper (multilingual) transcribes, in its tokenizer's order, Cantonese last. */
export const WHISPER_LANGUAGES = (
  "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la " +
  "mi ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be " +
  "tg sd gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue"
).split(" ");

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
