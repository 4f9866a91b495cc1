/** The end-of-turn model of a models directory: whether it is installed, and one loaded instance per path. */
import { join } from "node:path";
import { SMART_TURN_FILE } from "../../catalogue/index.ts";
import type { TurnModel } from "./smart-turn.ts";
import { TurnModelThread } from "./thread.ts";
import { turnModelInstalled } from "./installed.ts";

export { SmartTurn, turnFeatures, type TurnModel } from "./smart-turn.ts";
export { TurnModelThread } from "./thread.ts";
export { EndOfTurnDetector, type EndOfTurnSettings, type TurnEvent, type TurnEnd, type TurnScore } from "./detector.ts";
export { createTurnChannel, type TurnChannel } from "./channel.ts";

export { turnModelInstalled } from "./installed.ts";

const loaded = new Map<string, Promise<TurnModel>>();

/**
 * The turn model of `modelsDir`, loaded once per process in a worker thread of its own (its load
 * and its evaluations never hold the event loop); null when it is not installed.
 */
export function loadTurnModel(modelsDir: string): Promise<TurnModel> | null {
  if (!turnModelInstalled(modelsDir)) return null;
  const path = join(modelsDir, SMART_TURN_FILE);
  let p = loaded.get(path);
  if (!p) {
    p = TurnModelThread.load(path);
    p.catch(() => loaded.delete(path));
    loaded.set(path, p);
  }
  return p;
}
