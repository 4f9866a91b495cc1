/** Whether the speaker encoder is installed (the file check alone: no onnxruntime is loaded). */
import { catalogueEntry, isInstalled, SPEAKER_ID } from "../../catalogue/index.ts";

/** True when `models pull resemblyzer-speaker` has installed the encoder in `modelsDir`. */
export function speakerModelInstalled(modelsDir: string): boolean {
  return isInstalled(catalogueEntry(SPEAKER_ID)!, modelsDir);
}
