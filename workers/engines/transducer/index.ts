/** Transducer family entry point for the engine registry: `loadEngine(dir, opts)`. */
import type { EngineLoadOptions } from "../registry.ts";
import type { Engine } from "../types.ts";
import { TransducerEngine } from "./engine.ts";

export { TransducerEngine } from "./engine.ts";
export type { TransducerEngineOptions, TransducerTranscribeResult, TransducerDecoding } from "./engine.ts";

/** Loads a streaming transducer from a sherpa-onnx style model directory. */
export async function loadEngine(dir: string, opts: EngineLoadOptions): Promise<Engine> {
  const o = opts.options ?? {};
  return TransducerEngine.load({
    modelDir: dir,
    name: opts.name,
    threads: opts.threads,
    preferQuantized: o.preferQuantized === true,
    languages: Array.isArray(o.languages) ? (o.languages as string[]) : undefined,
    decoding: o.decoding === "modified_beam_search" ? "modified_beam_search" : "greedy_search",
    beamSize: typeof o.beamSize === "number" ? o.beamSize : undefined,
    hotwordScore: typeof o.hotwordScore === "number" ? o.hotwordScore : undefined,
  });
}
