/**
 * Part of the composition root: the audio add-ons whose models are installed in MODELS_DIR (the
 * end-of-turn model, the speaker encoder), as the factories the enrichment stage uses
 * (`server/session/audio-addons.ts`).
 *
 * An add-on is on when its model file is installed (the same file-presence check the capability
 * answers use), not once its model has loaded: the service listens before any add-on model is
 * loaded. `warm()` starts the loads in the background; a session that needs a model not loaded yet
 * waits for it. A model that fails to load is logged, and its add-on then adds nothing to the
 * sessions that asked for it (no end-of-turn events, no speaker labels).
 */
import type { SpeakerLabeller } from "./session/diarization.ts";
import type { TurnChannel } from "./session/end-of-turn.ts";
import type { VadModel } from "../workers/contract/vad.ts";
import { loadSpeakerEngines, loadTurnEngines, speakerModelInstalled, turnModelInstalled } from "../workers/public.ts";
import { loadOnce } from "../common/load-once.ts";
import type { Logger } from "./log.ts";
import type { AudioAddons } from "./session/audio-addons.ts";

/** The add-ons of a models directory, and the background load of their models. */
export interface LazyAudioAddons {
  addons: AudioAddons;
  /** Starts loading the installed add-ons' models (idempotent); resolves when every load has settled. */
  warm(): Promise<void>;
}

/** A load started at most once; null when it failed (logged once, and not tried again). */
function once<T>(what: string, load: () => Promise<T>, log: Logger): () => Promise<T | null> {
  return loadOnce(() =>
    load().catch((err: unknown) => {
      log.error(`the ${what} model could not be loaded; its add-on does nothing`, { err });
      return null;
    }),
  );
}

export function audioAddons(modelsDir: string, vad: () => Promise<VadModel>, log: Logger): LazyAudioAddons {
  const turnInstalled = turnModelInstalled(modelsDir);
  const speakerInstalled = speakerModelInstalled(modelsDir);
  const turnModel = once("end-of-turn", async () => (await loadTurnEngines()).loadTurnModel(modelsDir)!, log);
  const turnVad = once("voice activity", vad, log);
  const speakerModel = once("speaker-embedding", async () => (await loadSpeakerEngines()).loadSpeakerEncoder(modelsDir)!, log);

  /** The turn channel once its models are loaded; null when one failed. */
  const turnChannel = async (channel: number, settings: Parameters<NonNullable<AudioAddons["turnChannel"]>>[1]): Promise<TurnChannel | null> => {
    const [model, v] = await Promise.all([turnModel(), turnVad()]);
    if (!model || !v) return null;
    const { createTurnChannel } = await loadTurnEngines();
    return createTurnChannel(model, v, channel, settings);
  };

  const addons: AudioAddons = {
    turnChannel: turnInstalled
      ? (channel, settings) => {
          const ready = turnChannel(channel, settings);
          return {
            push: async (samples, time) => (await ready)?.push(samples, time) ?? [],
            close: () => void ready.then((c) => c?.close()),
          };
        }
      : null,
    speakers: speakerInstalled
      ? (config): SpeakerLabeller => {
          const ready = speakerModel().then(async (encoder) => (encoder ? (await loadSpeakerEngines()).createSpeakerLabeller(encoder, config) : null));
          // Without the encoder an utterance keeps no speaker (the enrichment stage logs the failure).
          return {
            label: async (audio) => {
              const labeller = await ready;
              if (!labeller) throw new Error("the speaker-embedding model could not be loaded");
              return labeller.label(audio);
            },
          };
        }
      : null,
  };
  return {
    addons,
    async warm() {
      await Promise.all([turnInstalled ? Promise.all([turnModel(), turnVad()]) : null, speakerInstalled ? speakerModel() : null]);
    },
  };
}
