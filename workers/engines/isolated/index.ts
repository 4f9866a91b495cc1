/** Isolated-token engine family: entry point used by the engine registry. */
import type { EngineLoadOptions } from "../registry.ts";
import { IsolatedTokenEngine } from "./engine.ts";

export { IsolatedTokenEngine, readIsolatedTokenMeta, softmax } from "./engine.ts";
export type { IsolatedTokenMeta, IsolatedTokenOptions } from "./engine.ts";

/** Registry loader: `options.preferQuantized` selects the int8 model. */
export function loadEngine(dir: string, opts: EngineLoadOptions): Promise<IsolatedTokenEngine> {
  return IsolatedTokenEngine.load(dir, {
    name: opts.name,
    threads: opts.threads,
    preferQuantized: opts.options?.preferQuantized === true,
  });
}
