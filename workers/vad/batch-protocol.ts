/** Messages between the batched VAD (`batched.ts`) and its worker thread (`batch-worker.ts`). */

export type ToVadWorker =
  | { type: "load"; modelPath: string }
  /**
   * One tick: `slots[i]` scores `counts[i]` chunks of 512 samples, laid out one stream after the
   * other in `frames`. Slots in `resets` start from a zero state and context first.
   */
  | { type: "run"; id: number; slots: Int32Array; counts: Int32Array; resets: Int32Array; frames: Float32Array };

export type FromVadWorker =
  | { type: "loaded" }
  | { type: "load_failed"; message: string }
  /** Speech probabilities in the order of the request's chunks. */
  | { type: "result"; id: number; probs: Float32Array; inferences: number }
  | { type: "failed"; id: number; message: string };
