/**
 * Beam search feeds the decoder one row of cross-attention cache and encoder output for the whole
 * batch of hypotheses (the graph's MatMul broadcasts it). On real tiny.en weights the logits and the
 * self-attention caches are the same, bit for bit, as with the rows repeated.
 */
import { describe, expect, test } from "bun:test";
import path from "node:path";
import * as ort from "onnxruntime-node";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { WHISPER_CHUNK_SAMPLES, loadWhisperMelFilters, whisperLogMel } from "../../workers/dsp/whisper-mel.ts";
import { loadWhisperConfig } from "../../workers/engines/whisper/config.ts";
import { WhisperDecoder } from "../../workers/engines/whisper/decoder.ts";
import { WhisperTokenizer } from "../../workers/tokenizer/whisper.ts";
import { sharedAudio } from "../helpers/server.ts";
import { modelsDir, requireWeights } from "./models.ts";

const ready = requireWeights("whisper-tiny.en");

describe("beam steps with one row of cross-attention cache (whisper-tiny.en)", () => {
  test.skipIf(!ready)("same logits and caches as with the rows repeated; the decoder keeps broadcasting", async () => {
    const assets = path.join(modelsDir, "whisper-assets");
    const cfg = loadWhisperConfig(path.join(modelsDir, "whisper-tiny.en"), { quantized: "encoder" });
    const tk = WhisperTokenizer.load(assets, { encoding: "gpt2" });
    const opts = { intraOpNumThreads: 1, graphOptimizationLevel: "all" as const };
    const encoder = await ort.InferenceSession.create(cfg.encoderPath, opts);
    const session = await ort.InferenceSession.create(cfg.decoderPath, opts);
    const jfk = readWavFile(path.join(sharedAudio, "jfk.wav")).samples;
    const mel = whisperLogMel(jfk, 80, { padToSamples: WHISPER_CHUNK_SAMPLES, filters: loadWhisperMelFilters(assets, 80), tail: "features" });
    const hidden = (await encoder.run({ input_features: new ort.Tensor("float32", mel.data, [1, 80, mel.nFrames]) })).last_hidden_state!;

    const broadcast = new WhisperDecoder(session, cfg.decoderHeads, cfg.headDim, cfg.vocabSize);
    const repeated = new WhisperDecoder(session, cfg.decoderHeads, cfg.headDim, cfg.vocabSize, undefined, true);
    const prompt = [tk.sot, tk.noTimestamps];
    const runs = await Promise.all([broadcast, repeated].map(async (d) => {
      const first = await d.run(prompt, hidden, null);
      // Three hypotheses from the first row, then a reordering that repeats one and drops another.
      let cache = d.reorder(first.cache, [0, 0, 0]);
      const a = await d.step(tk.encode(" And so my").slice(0, 3), hidden, cache);
      cache = d.reorder(a.cache, [2, 0, 0]);
      const b = await d.step(tk.encode(" fellow Americans ask").slice(0, 3), hidden, cache);
      return { a, b };
    }));
    const [x, y] = runs as [typeof runs[0], typeof runs[0]];
    expect(broadcast.broadcastsCrossRows).toBe(true);
    expect(repeated.broadcastsCrossRows).toBe(false);
    expect(x.a.logits.length).toBe(3 * cfg.vocabSize);
    expect(x.a.logits).toEqual(y.a.logits);
    expect(x.b.logits).toEqual(y.b.logits);
    for (const [name, t] of Object.entries(x.b.cache.self)) expect(t.data).toEqual(y.b.cache.self[name]!.data);
    // The broadcasting decoder never widened the cross-attention cache.
    expect(x.b.cache.crossWide).toBeUndefined();
    for (const t of Object.values(x.b.cache.cross)) expect(t.dims[0]).toBe(1);
  }, 60_000);
});
