/**
 * Worker thread of the end-of-turn model: one Smart Turn session, its front end (normalised
 * waveform → Whisper log-mel) and its runs, so that neither the model's load nor an evaluation
 * holds the event loop (onnxruntime-node loads and runs a session synchronously on the thread that
 * calls it). Evaluations run one at a time, in arrival order (`SmartTurn.predict`).
 */
import { parentPort } from "node:worker_threads";
import { SmartTurn } from "./smart-turn.ts";
import type { FromTurnWorker, ToTurnWorker } from "./thread-protocol.ts";

if (!parentPort) throw new Error("workers/engines/turn/turn-worker.ts must run as a worker thread");
const port = parentPort;

let model: SmartTurn | null = null;

port.on("message", (m: ToTurnWorker) => {
  if (m.type === "load") {
    SmartTurn.load(m.modelPath, m.threads).then(
      (loaded) => {
        model = loaded;
        port.postMessage({ type: "loaded" } satisfies FromTurnWorker);
      },
      (err: unknown) => port.postMessage({ type: "load_failed", message: (err as Error).message } satisfies FromTurnWorker),
    );
  } else if (m.type === "predict") {
    if (!model) {
      port.postMessage({ type: "failed", id: m.id, message: "the end-of-turn model is not loaded" } satisfies FromTurnWorker);
      return;
    }
    model.predict(m.audio).then(
      (probability) => port.postMessage({ type: "probability", id: m.id, probability } satisfies FromTurnWorker),
      (err: unknown) => port.postMessage({ type: "failed", id: m.id, message: (err as Error).message } satisfies FromTurnWorker),
    );
  }
});
