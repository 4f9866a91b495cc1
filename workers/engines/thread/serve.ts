/**
 * The worker side of a `ModelThread`: loads the model once with the arguments of the "load" message,
 * then answers each call in arrival order (the model's own queue keeps the order).
 */
import { parentPort } from "node:worker_threads";
import type { FromModelWorker, ToModelWorker } from "./protocol.ts";

export function serveModel<Args, In, Out>(
  load: (args: Args) => Promise<(input: In) => Promise<Out>>,
  /** Buffers of an answer the main thread takes over (not copied). */
  transferOf: (output: Out) => ArrayBuffer[] = () => [],
): void {
  if (!parentPort) throw new Error("a model thread's script must run as a worker thread");
  const port = parentPort;
  let run: ((input: In) => Promise<Out>) | null = null;
  port.on("message", (m: ToModelWorker<Args, In>) => {
    if (m.type === "load") {
      load(m.args).then(
        (loaded) => {
          run = loaded;
          port.postMessage({ type: "loaded" } satisfies FromModelWorker<Out>);
        },
        (err: unknown) => port.postMessage({ type: "load_failed", message: (err as Error).message } satisfies FromModelWorker<Out>),
      );
      return;
    }
    if (!run) {
      port.postMessage({ type: "failed", id: m.id, message: "the model is not loaded" } satisfies FromModelWorker<Out>);
      return;
    }
    run(m.input).then(
      (output) => port.postMessage({ type: "result", id: m.id, output } satisfies FromModelWorker<Out>, transferOf(output)),
      (err: unknown) => port.postMessage({ type: "failed", id: m.id, message: (err as Error).message } satisfies FromModelWorker<Out>),
    );
  });
}
