
type TranslationLanguageCode = "af" | "am" | "ar" | "as" | "be" | "bg" | "bn" | "ca" | "da" | "de" | "en" | "es" | "fa" | "fr" | "gl" | "id" | "it" | "ja" | "km" | "ko" | "ln" | "lo" | "ms" | "my" | "ne" | "nl" | "no" | "ps" | "pt" | "ro" | "ru" | "so" | "sv" | "th" | "vi" | "wo" | "yo" | "zh";
export { TranslationLanguageCode };