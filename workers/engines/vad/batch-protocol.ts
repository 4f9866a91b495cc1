/**
 * Between the batched VAD (`batched.ts`) and its worker thread (`batch-worker.ts`).
 *
 * Ticks go through shared memory, not messages: the main thread writes a tick's chunks into the
 * shared buffers, bumps `REQUEST` and wakes the worker (`Atomics.notify`); the worker scores them,
 * writes the probabilities and bumps `DONE`, which the main thread awaits with `Atomics.waitAsync`.
 * One tick is in flight at a time, so the buffers are never read and written at once. Messages
 * carry only the model load and a tick's failure.
 */

/** Words of the control array (`Int32Array` over `SharedVadBuffers.control`). */
export const CTL = {
  /** Id of the last tick written (main → worker). */
  REQUEST: 0,
  /** Id of the last tick scored (worker → main). */
  DONE: 1,
  /** Streams in the tick: `index` holds their slots, then their chunk counts. */
  STREAMS: 2,
  /** Slots to reset before the tick: `index` holds them after the counts. */
  RESETS: 3,
  /** Inferences the last tick ran. */
  INFERENCES: 4,
} as const;
export const CTL_WORDS = 8;

/**
 * The shared buffers (growable by the main thread between ticks; the worker's views track their
 * length): `index` (Int32) slots, counts and resets of a tick; `frames` (Float32) its chunks of 512
 * samples, one stream after the other; `probs` (Float32) the speech probability of each chunk.
 */
export interface SharedVadBuffers {
  control: SharedArrayBuffer;
  index: SharedArrayBuffer;
  frames: SharedArrayBuffer;
  probs: SharedArrayBuffer;
}

export type ToVadWorker = { type: "load"; modelPath: string; buffers: SharedVadBuffers };

export type FromVadWorker =
  | { type: "loaded" }
  | { type: "load_failed"; message: string }
  /** Tick `id` failed (`DONE` does not move). */
  | { type: "failed"; id: number; message: string };
