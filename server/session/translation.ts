/**
 * The `translation` add-on: each final utterance is translated into every target language the
 * session asked for, one `translation` message per target. The only translator installed is the
 * recognizer itself: Whisper's `translate` task, which speaks English, so `en` is the only target
 * a model offers (`capabilities.translation_targets`); other targets, and translation combined with
 * PII redaction, are refused when the session connects (`server/session/admission.ts`: close 1011
 * `rejected: …`). An utterance already in the target language is its own translation.
 */
import type { TranslationLanguageCode, Utterance } from "../../generated/openapi/types.gen.ts";
import type { TranscribeResult } from "../../workers/contract/types.ts";
import type { EnrichContext, Enricher, Enrichment, UtteranceRef } from "./enrich.ts";

export interface TranslationData {
  utterance_id: string;
  utterance: Utterance;
  original_language: string;
  target_language: TranslationLanguageCode;
  translated_utterance: Utterance;
}

/** Runs the recognizer's translate task on an utterance's audio into `target`. */
export type Translate = (audio: Float32Array, target: string, utteranceId: string) => Promise<TranscribeResult>;

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** The translated utterance: the original's times and channel, the translation's text and words. */
function translatedUtterance(original: Utterance, r: TranscribeResult, target: string): Utterance {
  const text = r.text.trim();
  const base = original.start;
  const words = r.words.length > 0
    ? r.words.map((w) => ({ word: w.word, start: round3(base + w.start), end: round3(base + w.end), confidence: round3(clamp01(w.confidence)) }))
    : text !== "" ? [{ word: text, start: original.start, end: original.end, confidence: round3(clamp01(r.confidence)) }] : [];
  return { ...original, confidence: round3(clamp01(r.confidence)), words, text, language: target };
}

/** Whisper's translate task through the coordinator, on the session's model and languages. */
export function recognizerTranslate(ctx: EnrichContext): Translate {
  const languages = ctx.options.language_config.languages;
  return (audio, target, utteranceId) =>
    ctx.coordinator.transcribe({
      sessionId: ctx.sessionId,
      utteranceId: `${utteranceId}/translate/${target}`,
      seq: 2_000_000,
      model: ctx.options.model,
      request: { audio, partial: false, task: "translate", targetLanguage: target, languages: languages.length > 0 ? languages : undefined },
    });
}

export class TranslationEnricher implements Enricher {
  readonly name = "translation";

  constructor(
    private readonly targets: TranslationLanguageCode[],
    private readonly translate: Translate,
    private readonly ctx: Pick<EnrichContext, "messages" | "log">,
  ) {}

  /** One `translation` message per target after the final's transcript; a failure is an `error` message. */
  async onFinal(utterance: Utterance, ref: UtteranceRef): Promise<Enrichment | void> {
    if (!ref.audio) return;
    try {
      const results = await this.translateFinal(utterance, ref.id, ref.audio);
      return { messages: results.map((data) => this.ctx.messages.build("translation", { error: null, data })) };
    } catch (err) {
      this.ctx.log.error("translation failed", { utterance: ref.id, err });
      return { messages: [this.ctx.messages.error(`translation of utterance ${ref.id} failed: ${(err as Error).message}`, "translation_failed")] };
    }
  }

  /** One result per target for a final utterance (in the order the targets were asked for). */
  async translateFinal(utterance: Utterance, utteranceId: string, audio: Float32Array): Promise<TranslationData[]> {
    const out: TranslationData[] = [];
    for (const target of this.targets) {
      const translated = utterance.language === target
        ? { ...utterance }
        : translatedUtterance(utterance, await this.translate(audio, target, utteranceId), target);
      out.push({ utterance_id: utteranceId, utterance, original_language: utterance.language, target_language: target, translated_utterance: translated });
    }
    return out;
  }
}
