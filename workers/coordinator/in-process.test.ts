import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { englishModelsDir, sharedAudio } from "../../test/helpers/models.ts";
import { words } from "../../test/helpers/text.ts";
import { readWavFile } from "../dsp/wav.ts";
import { InProcessCoordinator } from "./in-process.ts";
import { NoCapacityError, NoEndpointError, type InferenceJob } from "../contract/types.ts";

const clip = (name: string) => readWavFile(resolve(sharedAudio, `${name}.wav`)).samples;
const job = (audio: Float32Array, extra: Partial<InferenceJob> = {}): InferenceJob => ({
  sessionId: "s1", utteranceId: "0:0", seq: 1, model: "trantoria-1", request: { audio, partial: false }, ...extra,
});

let coordinator: InProcessCoordinator;
beforeAll(async () => {
  coordinator = await InProcessCoordinator.create({ modelsDir: englishModelsDir(), threads: 1, queueLimit: 100 });
});
afterAll(() => coordinator.close());

describe("in-process coordinator", () => {
  test("reports trantoria-1 served by whisper-tiny.en", async () => {
    const caps = await coordinator.capabilities();
    expect(caps.map((c) => [c.model, c.engine])).toEqual([["trantoria-1", "whisper-tiny.en"]]);
  });

  test("transcribes real speech through the worker pool", async () => {
    const r = await coordinator.transcribe(job(clip("jfk")));
    expect(words(r.text)).toContain("ask not what your country can do for you");
    expect(words((await coordinator.transcribe(job(clip("spelling/zero")))).text)).toBe("zero");
  });

  test("unserved models, languages or translation are refused with NoEndpointError", async () => {
    await expect(coordinator.transcribe(job(clip("spelling/a"), { model: "solaria-3" }))).rejects.toBeInstanceOf(NoEndpointError);
    const fr = job(clip("spelling/a"));
    fr.request.languages = ["fr"];
    await expect(coordinator.transcribe(fr)).rejects.toThrow(/no inference endpoint available.*fr/);
    const tr = job(clip("spelling/a"));
    Object.assign(tr.request, { task: "translate", targetLanguage: "de" });
    await expect(coordinator.transcribe(tr)).rejects.toBeInstanceOf(NoEndpointError);
  });

  test("the event loop keeps ticking while a batch of transcriptions runs", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const audio = clip("spelling/zero");
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 4 }, () => coordinator.transcribe(job(audio))));
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(results.map((r) => words(r.text))).toEqual(["zero", "zero", "zero", "zero"]);
    // Feature extraction and inference run on the worker: the main loop is free to tick throughout.
    expect(ticks).toBeGreaterThanOrEqual(Math.min(20, Math.floor(elapsed / 10)));
    expect(ticks).toBeGreaterThan(0);
  });

  test("capabilities follow MODELS_DIR without a restart, and the queue bound is enforced", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coord-"));
    const c = await InProcessCoordinator.create({ modelsDir: dir, threads: 1, queueLimit: 1 });
    try {
      expect(await c.capabilities()).toEqual([]);
      await expect(c.transcribe(job(clip("spelling/a")))).rejects.toBeInstanceOf(NoEndpointError);
      for (const id of ["whisper-tiny.en", "whisper-assets"]) symlinkSync(join(englishModelsDir(), id), join(dir, id));
      expect((await c.capabilities()).map((x) => x.engine)).toEqual(["whisper-tiny.en"]);
      const settled = await Promise.allSettled([1, 2, 3].map(() => c.transcribe(job(clip("spelling/zero")))));
      expect(settled.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
      expect(words((settled[0] as PromiseFulfilledResult<{ text: string }>).value.text)).toBe("zero");
      expect((settled[2] as PromiseRejectedResult).reason).toBeInstanceOf(NoCapacityError);
    } finally {
      await c.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
