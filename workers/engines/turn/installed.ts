/** Whether the end-of-turn model is installed (the file check alone: no onnxruntime is loaded). */
import { catalogueEntry, isInstalled, SMART_TURN_ID } from "../../catalogue/index.ts";

/** True when `models pull smart-turn-v3` has installed the model in `modelsDir`. */
export function turnModelInstalled(modelsDir: string): boolean {
  return isInstalled(catalogueEntry(SMART_TURN_ID)!, modelsDir);
}
