/** The catalogue's starting figure of what one real-time stream costs an engine (`CatalogueEntry.streamCost`). */
import { CATALOGUE } from "./entries.ts";

/** Engine-seconds per audio-second assumed for an entry that gives no figure: one thread per stream. */
export const DEFAULT_STREAM_COST = 1;

/** The starting stream cost of catalogue entry `engineId` (engine-seconds per audio-second). */
export function streamCostOf(engineId: string): number {
  return CATALOGUE.find((e) => e.id === engineId)?.streamCost ?? DEFAULT_STREAM_COST;
}
