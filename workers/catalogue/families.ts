/**
 * The catalogue's one list of families: which entries are speech recognizers (an engine family,
 * `workers/engines/registry.ts`) and which are auxiliary files that serve no public model.
 */
import type { EngineFamily } from "../engines/types.ts";
import type { AuxiliaryFamily, CatalogueEntry } from "./types.ts";

/** Every auxiliary family (typed as a record so that a family added to `AuxiliaryFamily` must be listed). */
const AUXILIARY: Record<AuxiliaryFamily, true> = { vad: true, assets: true, turn: true, speaker: true };

/** Whether an entry is a speech recognizer (its family is an engine family). */
export function isRecognizer(entry: CatalogueEntry): entry is CatalogueEntry & { family: EngineFamily } {
  return !Object.hasOwn(AUXILIARY, entry.family);
}

/** A recognizer of general speech: every recognizer but the isolated-token one (letters, digits, command words). */
export function isGeneralRecognizer(entry: CatalogueEntry): entry is CatalogueEntry & { family: EngineFamily } {
  return isRecognizer(entry) && entry.family !== "isolated-token";
}
