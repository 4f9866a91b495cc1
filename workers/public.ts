/**
 * What the server may use of inference besides the contract (`workers/contract/`: the coordinator
 * interface, `canServe`, the VAD interface, the wire codec): the catalogue of public models, whether
 * the audio add-ons' models are installed, the Redis coordinator's metrics, each engine's starting stream cost, and the add-ons' engines,
 * loaded on first use. The composition root (`server/server.ts`) alone picks implementations.
 */
export { CATALOGUE, PUBLIC_MODELS } from "./catalogue/entries.ts";
export { isGeneralRecognizer } from "./catalogue/families.ts";
export { streamCostOf } from "./catalogue/stream-cost.ts";
export { speakerModelInstalled } from "./engines/speaker/installed.ts";
export { turnModelInstalled } from "./engines/turn/installed.ts";
export type { CoordinatorMetrics, ModelQueueMetrics } from "./coordinator/redis-metrics.ts";

/** The end-of-turn engines (Smart Turn in a thread of its own, the per-channel detector), loaded on first call. */
export const loadTurnEngines = () => import("./engines/turn/index.ts");
/** The speaker encoder (in a thread of its own) and online clustering, loaded on first call. */
export const loadSpeakerEngines = () => import("./engines/speaker/index.ts");
