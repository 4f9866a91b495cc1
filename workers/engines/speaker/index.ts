/** The speaker encoder of a models directory: whether it is installed, and one loaded instance per path. */
import { join } from "node:path";
import { catalogueEntry, isInstalled, SPEAKER_FILE, SPEAKER_ID } from "../../catalogue/index.ts";
import { SpeakerEncoder } from "./encoder.ts";

export { SpeakerEncoder, cosine } from "./encoder.ts";
export { OnlineSpeakerClustering, DEFAULT_SPEAKER_THRESHOLD } from "./cluster.ts";

/** True when `models pull resemblyzer-speaker` has installed the encoder in `modelsDir`. */
export function speakerModelInstalled(modelsDir: string): boolean {
  return isInstalled(catalogueEntry(SPEAKER_ID)!, modelsDir);
}

const loaded = new Map<string, Promise<SpeakerEncoder>>();

/** The speaker encoder of `modelsDir`, loaded once per process; null when it is not installed. */
export function loadSpeakerEncoder(modelsDir: string): Promise<SpeakerEncoder> | null {
  if (!speakerModelInstalled(modelsDir)) return null;
  const path = join(modelsDir, SPEAKER_FILE);
  let p = loaded.get(path);
  if (!p) {
    p = SpeakerEncoder.load(path);
    p.catch(() => loaded.delete(path));
    loaded.set(path, p);
  }
  return p;
}
