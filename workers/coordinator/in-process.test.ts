import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readWavFile } from "../dsp/wav.ts";
import { InProcessCoordinator } from "./in-process.ts";
import { NoCapacityError, NoEndpointError, type InferenceJob } from "./types.ts";

const SHARED = resolve(import.meta.dir, "../../../shared");
const clip = (name: string) => readWavFile(resolve(SHARED, "audio/spelling", `${name}.wav`)).samples;
const job = (audio: Float32Array, extra: Partial<InferenceJob> = {}): InferenceJob => ({
  sessionId: "s1", utteranceId: "0:0", seq: 1, model: "trantoria-1", request: { audio, partial: false }, ...extra,
});

let coordinator: InProcessCoordinator;
beforeAll(async () => {
  coordinator = await InProcessCoordinator.create({ modelsDir: resolve(SHARED, "models"), threads: 1, queueLimit: 100 });
});
afterAll(() => coordinator.close());

describe("in-process coordinator", () => {
  test("reports trantoria-1 served by the isolated-token engine", async () => {
    const caps = await coordinator.capabilities();
    expect(caps.map((c) => [c.model, c.engine])).toEqual([["trantoria-1", "moonshine-micro-spelling"]]);
  });

  test("transcribes spelling clips through the worker pool", async () => {
    for (const [file, token] of [["zero", "zero"], ["b", "b"]]) {
      const r = await coordinator.transcribe(job(clip(file)));
      expect(r.text).toBe(token);
    }
  });

  test("unserved models, languages or translation are refused with NoEndpointError", async () => {
    await expect(coordinator.transcribe(job(clip("a"), { model: "solaria-3" }))).rejects.toBeInstanceOf(NoEndpointError);
    const fr = job(clip("a"));
    fr.request.languages = ["fr"];
    await expect(coordinator.transcribe(fr)).rejects.toThrow(/no inference endpoint available.*fr/);
    const tr = job(clip("a"));
    Object.assign(tr.request, { task: "translate", targetLanguage: "de" });
    await expect(coordinator.transcribe(tr)).rejects.toBeInstanceOf(NoEndpointError);
  });

  test("the event loop keeps ticking while a batch of transcriptions runs", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const audio = clip("c");
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 40 }, () => coordinator.transcribe(job(audio))));
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(results.every((r) => r.text === "c")).toBe(true);
    // Feature extraction and inference run on the worker: the main loop is free to tick throughout.
    expect(ticks).toBeGreaterThanOrEqual(Math.min(20, Math.floor(elapsed / 10)));
    expect(ticks).toBeGreaterThan(0);
  });

  test("capabilities follow MODELS_DIR without a restart, and the queue bound is enforced", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coord-"));
    const c = await InProcessCoordinator.create({ modelsDir: dir, threads: 1, queueLimit: 1 });
    try {
      expect(await c.capabilities()).toEqual([]);
      await expect(c.transcribe(job(clip("a")))).rejects.toBeInstanceOf(NoEndpointError);
      mkdirSync(join(dir, "moonshine-micro"));
      for (const f of ["spelling_cnn_mel.shrunk.onnx", "spelling_cnn_meta.json"]) {
        symlinkSync(resolve(SHARED, "models/moonshine-micro", f), join(dir, "moonshine-micro", f));
      }
      expect((await c.capabilities()).map((x) => x.engine)).toEqual(["moonshine-micro-spelling-int8"]);
      const settled = await Promise.allSettled([1, 2, 3].map(() => c.transcribe(job(clip("zero")))));
      expect(settled.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
      expect((settled[0] as PromiseFulfilledResult<{ text: string }>).value.text).toBe("zero");
      expect((settled[2] as PromiseRejectedResult).reason).toBeInstanceOf(NoCapacityError);
    } finally {
      await c.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
