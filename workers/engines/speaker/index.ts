/** The speaker encoder of a models directory: whether it is installed, and one loaded instance per path. */
import { LoadOnce } from "../../../common/load-once.ts";
import { join } from "node:path";
import { SPEAKER_FILE } from "../../catalogue/index.ts";
import { DEFAULT_SPEAKER_THRESHOLD, OnlineSpeakerClustering } from "./cluster.ts";
import type { VoicePrinter } from "./encoder.ts";
import { speakerModelInstalled } from "./installed.ts";
import { SpeakerEncoderThread } from "./thread.ts";

export { SpeakerEncoder, cosine, type VoicePrinter } from "./encoder.ts";
export { SpeakerEncoderThread } from "./thread.ts";
export { OnlineSpeakerClustering, DEFAULT_SPEAKER_THRESHOLD } from "./cluster.ts";

export { speakerModelInstalled } from "./installed.ts";

const loaded = new LoadOnce<string, VoicePrinter>();

/**
 * The speaker encoder of `modelsDir`, loaded once per process in a worker thread of its own (its
 * load and its runs never hold the event loop); null when it is not installed.
 */
export function loadSpeakerEncoder(modelsDir: string): Promise<VoicePrinter> | null {
  if (!speakerModelInstalled(modelsDir)) return null;
  const path = join(modelsDir, SPEAKER_FILE);
  return loaded.get(path, () => SpeakerEncoderThread.load(path));
}

/** Speakers of one session: each utterance's voice print, clustered online (see cluster.ts). */
export interface SpeakerLabeller {
  /** The zero-based speaker of an utterance's 16 kHz audio (call in the order utterances end). */
  label(audio: Float32Array): Promise<number>;
}

export function createSpeakerLabeller(encoder: VoicePrinter, config: { number_of_speakers?: number | null; max_speakers?: number | null } | null | undefined): SpeakerLabeller {
  const clustering = new OnlineSpeakerClustering({
    threshold: DEFAULT_SPEAKER_THRESHOLD,
    numberOfSpeakers: config?.number_of_speakers ?? null,
    maxSpeakers: config?.max_speakers ?? null,
  });
  return { label: async (audio) => clustering.assign(await encoder.embed(audio), audio.length / 16000) };
}
