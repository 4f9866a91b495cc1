/** The end-of-turn model of a models directory: whether it is installed, and one loaded instance per path. */
import { LoadOnce } from "../../../common/load-once.ts";
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

const loaded = new LoadOnce<string, TurnModel>();

/**
 * The turn model of `modelsDir`, loaded once per process in a worker thread of its own (its load
 * and its evaluations never hold the event loop); null when it is not installed.
 */
export function loadTurnModel(modelsDir: string): Promise<TurnModel> | null {
  if (!turnModelInstalled(modelsDir)) return null;
  const path = join(modelsDir, SMART_TURN_FILE);
  return loaded.get(path, () => TurnModelThread.load(path));
}
