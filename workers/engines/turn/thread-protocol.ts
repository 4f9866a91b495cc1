/** Messages between `TurnModelThread` and its worker thread (`turn-worker.ts`). */
export type ToTurnWorker =
  | { type: "load"; modelPath: string; threads: number }
  /** `audio`: the last 8 s (or less) before the evaluation, 16 kHz mono; transferred. */
  | { type: "predict"; id: number; audio: Float32Array };

export type FromTurnWorker =
  | { type: "loaded" }
  | { type: "load_failed"; message: string }
  | { type: "probability"; id: number; probability: number }
  | { type: "failed"; id: number; message: string };
