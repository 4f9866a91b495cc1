/**
 * Part of the composition root: loads the audio add-ons' models that are installed in MODELS_DIR
 * (the end-of-turn model, the speaker encoder) and builds the factories the enrichment stage uses
 * (`server/session/audio-addons.ts`). A model that is not installed, or fails to load (logged),
 * leaves its add-on off; the capability check then refuses it.
 */
import { createSpeakerLabeller, loadSpeakerEncoder } from "../workers/engines/speaker/index.ts";
import { createTurnChannel, loadTurnModel } from "../workers/engines/turn/index.ts";
import type { VadModel } from "../workers/vad/silero.ts";
import type { Logger } from "./log.ts";
import type { AudioAddons } from "./session/audio-addons.ts";

async function loaded<T>(what: string, p: Promise<T> | null, log: Logger): Promise<T | null> {
  try {
    return p ? await p : null;
  } catch (err) {
    log.error(`the ${what} model could not be loaded; its add-on is off`, { err });
    return null;
  }
}

export async function loadAudioAddons(modelsDir: string, vad: () => Promise<VadModel>, log: Logger): Promise<AudioAddons> {
  const turn = await loaded("end-of-turn", loadTurnModel(modelsDir), log);
  const speaker = await loaded("speaker-embedding", loadSpeakerEncoder(modelsDir), log);
  const turnVad = turn ? await loaded("voice activity", vad(), log) : null;
  return {
    turnChannel: turn && turnVad ? (channel, settings) => createTurnChannel(turn, turnVad, channel, settings) : null,
    speakers: speaker ? (config) => createSpeakerLabeller(speaker, config) : null,
  };
}
