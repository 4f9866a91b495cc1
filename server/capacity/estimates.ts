/**
 * What one real-time stream costs the engines, per engine (catalogue id), in engine-seconds per
 * audio-second: the catalogue's conservative figure to start with, then an exponentially weighted
 * mean of the costs measured (`refine.ts`). A measurement never takes the estimate below half the
 * catalogue's figure: a saturated pool skips partials, which would read as cheaper streams.
 */
export class StreamCosts {
  private readonly measured = new Map<string, number>();

  /**
   * `initial`: the catalogue's figure of an engine. `weight`: the share of each new measurement in
   * the mean (default 0.3).
   */
  constructor(
    private readonly initial: (engine: string) => number,
    private readonly weight = 0.3,
  ) {}

  /** The estimated cost of one stream on `engine`. */
  of(engine: string): number {
    return this.measured.get(engine) ?? this.initial(engine);
  }

  /** One measurement: the engine spent `engineSeconds` on `audioSeconds` of streamed audio. */
  observe(engine: string, engineSeconds: number, audioSeconds: number): void {
    if (!(audioSeconds > 0) || !(engineSeconds >= 0)) return;
    const floor = this.initial(engine) / 2;
    const sample = Math.max(floor, engineSeconds / audioSeconds);
    const before = this.of(engine);
    this.measured.set(engine, before + this.weight * (sample - before));
  }
}
