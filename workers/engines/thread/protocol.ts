/** Messages between a `ModelThread` and the worker thread that serves its model (`serveModel`). */
export type ToModelWorker<Args, In> = { type: "load"; args: Args } | { type: "call"; id: number; input: In };

export type FromModelWorker<Out> =
  | { type: "loaded" }
  | { type: "load_failed"; message: string }
  | { type: "result"; id: number; output: Out }
  | { type: "failed"; id: number; message: string };
