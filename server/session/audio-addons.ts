/**
 * The audio add-ons in the enrichment stage: `diarization` (speaker labelling), `translation` (the
 * recognizer's translate task) and `end_of_turn` (per-channel turn detection). The models behind
 * them are loaded by the composition root (`server/addon-models.ts`), which hands in factories; an
 * add-on whose model is missing is refused before a session starts (`server/options/offered.ts`),
 * so it never silently does nothing.
 */
import type { TranslationLanguageCode } from "../../generated/openapi/types.gen.ts";
import type { AppliedOptions } from "../options/defaults.ts";
import { round3 } from "./messages.ts";
import { DiarizationEnricher, type SpeakerLabeller } from "./diarization.ts";
import { EndOfTurnEnricher, type TurnChannel } from "./end-of-turn.ts";
import { createEnrichers } from "../enrich/session.ts";
import type { Enricher, EnricherFactory } from "./enrich.ts";
import { recognizerTranslate, TranslationEnricher } from "./translation.ts";

export interface AudioAddons {
  /** The end-of-turn detection of one channel with the session's settings; null: not installed. */
  turnChannel: ((channel: number, settings: AppliedOptions["end_of_turn"]) => TurnChannel) | null;
  /** The speaker labelling of one session; null: not installed. */
  speakers: ((config: AppliedOptions["diarization_config"]) => SpeakerLabeller) | null;
}

/**
 * The factory of the enrichment stage: diarization first (it sets `speaker` on the utterance the
 * others see), then the default add-ons, then translation (its messages follow the transcript), then
 * end of turn (audio only; on when the init body has an `end_of_turn` object).
 */
export function withAudioAddons(addons: AudioAddons, base: EnricherFactory = createEnrichers): EnricherFactory {
  return async (options, ctx) => {
    const out: Enricher[] = [];
    if (options.diarization && addons.speakers) out.push(new DiarizationEnricher(addons.speakers(options.diarization_config)));
    out.push(...(await base(options, ctx)));
    const rt = options.realtime_processing;
    if (rt?.translation) {
      const targets = (rt.translation_config?.target_languages ?? []) as TranslationLanguageCode[];
      out.push(new TranslationEnricher(targets, recognizerTranslate(ctx), ctx));
    }
    const turnChannel = addons.turnChannel;
    if (ctx.requested.end_of_turn != null && turnChannel) {
      out.push(
        new EndOfTurnEnricher({
          channels: Array.from({ length: options.channels }, (_, c) => turnChannel(c, options.end_of_turn)),
          emitScores: options.end_of_turn.emit_scores === true,
          log: ctx.log,
          onEvent: (e) => {
            if (e.type === "end") {
              const probability = e.probability === null ? null : round3(e.probability);
              ctx.emit(ctx.messages.build("end_of_turn", { data: { channel: e.channel, probability, reason: e.reason, end: e.end, speech_duration: e.speech_duration } }));
            } else {
              const { channel, threshold, silence_ms, time, ended } = e;
              ctx.emit(ctx.messages.build("end_of_turn_score", { data: { channel, probability: round3(e.probability), threshold, silence_ms, time, ended } }));
            }
          },
        }),
      );
    }
    return out;
  };
}
