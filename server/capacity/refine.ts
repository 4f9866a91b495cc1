/**
 * Refines the stream costs from what the engines measurably spend: every interval, per engine, the
 * engine-seconds its decodes took (the pool's count) over the audio-seconds streamed to the
 * sessions of the models it serves. An interval with less than `MIN_AUDIO_S` of audio is not a
 * measurement (its engine time stays counted into the next).
 */
import type { StreamCosts } from "./estimates.ts";

const MIN_AUDIO_S = 5;

export interface RefineSources {
  /** Engine-seconds spent per engine since the start (cumulative). */
  engineSeconds(): ReadonlyMap<string, number>;
  /** Audio-seconds streamed per public model since the start (cumulative). */
  streamedSeconds(): ReadonlyMap<string, number>;
  /** The engine serving each public model now. */
  engineOf(model: string): string | undefined;
}

/** Takes one measurement per engine from the cumulative counts; call it at each interval. */
export function costMeter(costs: StreamCosts, sources: RefineSources): () => void {
  const engineBase = new Map<string, number>();
  const audioBase = new Map<string, number>();
  const take = () => {
    const audio = new Map<string, number>();
    for (const [model, total] of sources.streamedSeconds()) {
      const engine = sources.engineOf(model);
      if (engine) audio.set(engine, (audio.get(engine) ?? 0) + total);
    }
    for (const [engine, spent] of sources.engineSeconds()) {
      const streamed = audio.get(engine) ?? 0;
      // Counting starts at an engine's first sight: what was spent before (warm-up, another service
      // of the process) is not measured.
      if (!engineBase.has(engine)) {
        engineBase.set(engine, spent);
        audioBase.set(engine, streamed);
        continue;
      }
      const dA = streamed - (audioBase.get(engine) ?? 0);
      if (dA < MIN_AUDIO_S) continue;
      costs.observe(engine, spent - (engineBase.get(engine) ?? 0), dA);
      engineBase.set(engine, spent);
      audioBase.set(engine, streamed);
    }
  };
  return take;
}
