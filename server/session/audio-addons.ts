/**
 * The audio add-ons of the enrichment stage, and the models they need: `diarization` (speaker
 * encoder), `translation` (the recognizer's translate task) and `end_of_turn` (Smart Turn and a VAD
 * stream of its own). The composition root loads the models that are installed (`loadAudioAddonModels`)
 * and hands the factory (`withAudioAddons`) to the session host; an add-on whose model is missing is
 * refused before a session starts (`server/options/offered.ts`), so it never silently does nothing.
 */
import type { TranslationLanguageCode } from "../../generated/openapi/types.gen.ts";
import { loadSpeakerEncoder, type SpeakerEncoder } from "../../workers/engines/speaker/index.ts";
import { loadTurnModel, type SmartTurn } from "../../workers/engines/turn/index.ts";
import type { Logger } from "../log.ts";
import { round3 } from "./messages.ts";
import { DiarizationEnricher, type DiarizationConfig } from "./diarization.ts";
import { EndOfTurnEnricher } from "./end-of-turn.ts";
import { createEnrichers, type Enricher, type EnricherFactory } from "./enrich.ts";
import { recognizerTranslate, TranslationEnricher } from "./translation.ts";

export interface AudioAddonModels {
  turn: SmartTurn | null;
  speaker: SpeakerEncoder | null;
}

/** The add-on models installed in `modelsDir` (null where not installed; a broken file is logged). */
export async function loadAudioAddonModels(modelsDir: string, log: Logger): Promise<AudioAddonModels> {
  const load = async <T>(what: string, p: Promise<T> | null): Promise<T | null> => {
    try {
      return p ? await p : null;
    } catch (err) {
      log.error(`the ${what} model could not be loaded; its add-on is off`, { err });
      return null;
    }
  };
  return { turn: await load("end-of-turn", loadTurnModel(modelsDir)), speaker: await load("speaker-embedding", loadSpeakerEncoder(modelsDir)) };
}

/**
 * The factory of the enrichment stage: diarization first (it sets `speaker` on the utterance the
 * others see), then the default add-ons, then translation (its messages follow the transcript), then
 * end of turn (audio only).
 */
export function withAudioAddons(models: AudioAddonModels, base: EnricherFactory = createEnrichers): EnricherFactory {
  return (options, ctx) => {
    const out: Enricher[] = [];
    if (options.diarization && models.speaker) out.push(new DiarizationEnricher(models.speaker, options.diarization_config as DiarizationConfig | undefined));
    out.push(...base(options, ctx));
    const rt = options.realtime_processing;
    if (rt?.translation) {
      const targets = (rt.translation_config?.target_languages ?? []) as TranslationLanguageCode[];
      out.push(new TranslationEnricher(targets, recognizerTranslate(ctx), ctx));
    }
    if (ctx.requested.end_of_turn != null && models.turn) {
      out.push(
        new EndOfTurnEnricher({
          model: models.turn,
          vad: ctx.vad,
          settings: options.end_of_turn,
          channels: options.channels,
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
