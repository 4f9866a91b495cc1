/**
 * Worker thread of the end-of-turn model (`TurnModelThread`): one Smart Turn session, its front end
 * (normalised waveform → Whisper log-mel) and its runs, one evaluation at a time.
 */
import { serveModel } from "../thread/serve.ts";
import { SmartTurn } from "./smart-turn.ts";

serveModel(async ({ modelPath, threads }: { modelPath: string; threads: number }) => {
  const model = await SmartTurn.load(modelPath, threads);
  return (audio: Float32Array) => model.predict(audio);
});
