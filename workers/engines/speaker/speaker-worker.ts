/** Worker thread of the speaker encoder (`SpeakerEncoderThread`): one session, its mel front end and its runs. */
import { serveModel } from "../thread/serve.ts";
import { SpeakerEncoder } from "./encoder.ts";

serveModel(
  async ({ modelPath, threads }: { modelPath: string; threads: number }) => {
    const encoder = await SpeakerEncoder.load(modelPath, threads);
    return (wav: Float32Array) => encoder.embed(wav);
  },
  (print) => [print.buffer as ArrayBuffer],
);
