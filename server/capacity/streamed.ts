/**
 * Seconds of session audio streamed per public model in this process, counted where fresh audio
 * arrives (`LiveSession.audio`): the denominator of a stream's measured cost (`refine.ts`).
 */
const totals = new Map<string, number>();

/** Fresh audio of `seconds` has arrived for a session of `model`. */
export function audioStreamed(model: string, seconds: number): void {
  if (seconds > 0) totals.set(model, (totals.get(model) ?? 0) + seconds);
}

/** Audio seconds streamed per model since the process started. */
export function streamedSeconds(): ReadonlyMap<string, number> {
  return totals;
}
