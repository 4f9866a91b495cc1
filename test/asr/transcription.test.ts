/**
 * Real speech recognition end to end: real Whisper weights (`whisper-tiny.en` serving trantoria-1,
 * a multilingual Whisper serving solaria-1) behind a real service, driven over the WebSocket by the
 * official SDK in 100 ms chunks, on the shared clips with reference transcripts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { InProcessCoordinator } from "../../workers/coordinator/in-process.ts";
import type { InferenceCoordinator } from "../../workers/contract/types.ts";
import { sharedAudio, startTestService, type TestService } from "../helpers/server.ts";
import { modelsDir, requireWeights, vadModelsDir } from "./models.ts";
import { referenceTexts, streamClip } from "./stream.ts";
import { wordErrorRate } from "./wer.ts";

const ready = requireWeights("whisper-tiny.en", "whisper-base");
const LEOPARD: [file: string, language: string][] = [
  ["leopard_test.wav", "en"],
  ["leopard_test_de.wav", "de"],
  ["leopard_test_es.wav", "es"],
  ["leopard_test_fr.wav", "fr"],
  ["leopard_test_it.wav", "it"],
  ["leopard_test_pt.wav", "pt"],
];

let svc: TestService;
let coordinator: Promise<InProcessCoordinator> | null = null;
let references: Map<string, string>;

/**
 * The coordinator is left running until the process exits: terminating onnxruntime worker threads
 * while the main thread holds an onnxruntime session (the VAD) aborts the process.
 */
function sharedCoordinator(): InferenceCoordinator {
  coordinator ??= InProcessCoordinator.create({ modelsDir, threads: 1, queueLimit: 50, sessionThreads: 2 });
  return {
    capabilities: async () => (await coordinator!).capabilities(),
    transcribe: async (job, signal) => (await coordinator!).transcribe(job, signal),
    close: async () => {},
  };
}

beforeAll(async () => {
  if (!ready) return;
  references = await referenceTexts(sharedAudio);
  svc = await startTestService({ modelsDir: vadModelsDir, coordinator: sharedCoordinator() });
});
afterAll(async () => {
  await svc?.stop();
});

const stream = (model: string, file: string, languages?: string[]) =>
  streamClip({ apiUrl: svc.running.url, key: svc.key, model, wavPath: path.join(sharedAudio, file), languages });

function report(label: string, reference: string, text: string): number {
  const wer = wordErrorRate(reference, text);
  console.log(`WER ${label}: ${(wer * 100).toFixed(1)} %  «${text}»`);
  return wer;
}

describe.skipIf(!ready)("real Whisper weights through the WebSocket (official SDK, 100 ms chunks)", () => {
  test("the public models are served by the Whisper engines; the default model is one of them", async () => {
    const caps = await svc.running.deps.coordinator.capabilities();
    const engine = (m: string) => caps.find((c) => c.model === m)?.engine;
    expect(engine("trantoria-1")).toBe("whisper-tiny.en");
    expect(engine("solaria-1")).toMatch(/^whisper-(base|small)$/);
    const defaults = (await (await fetch(`${svc.running.url}/v2/live/defaults`, { headers: { "x-service-key": svc.key } })).json()) as { model: string };
    expect(caps.map((c) => c.model as string)).toContain(defaults.model);
  });

  test("jfk.wav with trantoria-1 (tiny.en): WER ≤ 10 %, word timings inside their utterances", async () => {
    const r = await stream("trantoria-1", "jfk.wav", ["en"]);
    expect(report("jfk trantoria-1", references.get("jfk.wav")!, r.text)).toBeLessThanOrEqual(0.1);
    for (const f of r.finals) {
      expect(f.words.length).toBeGreaterThan(0);
      for (const w of f.words) {
        expect(w.start).toBeGreaterThanOrEqual(f.start - 1e-3);
        expect(w.end).toBeLessThanOrEqual(f.end + 1e-3);
        expect(w.end).toBeGreaterThanOrEqual(w.start);
      }
    }
  }, 120_000);

  test("the low_latency profile asks the engine for low latency (shorter encoder windows), balanced for short partial windows: jfk.wav's WER stays ≤ 10 %", async () => {
    const jobs: { lowLatency?: boolean; shortPartialWindows?: boolean; partial: boolean }[] = [];
    const watched = sharedCoordinator();
    const seen: InferenceCoordinator = { ...watched, transcribe: (job, signal) => (jobs.push(job.request), watched.transcribe(job, signal)) };
    const own = await startTestService({ modelsDir: vadModelsDir, coordinator: seen });
    try {
      for (const profile of ["low_latency", "balanced", "accurate"]) {
        jobs.length = 0;
        const r = await streamClip({ apiUrl: own.running.url, key: own.key, model: "trantoria-1", wavPath: path.join(sharedAudio, "jfk.wav"), languages: ["en"], init: { profile, messages_config: { receive_partial_transcripts: true, receive_final_transcripts: true } } });
        expect(report(`jfk trantoria-1 ${profile}`, references.get("jfk.wav")!, r.text)).toBeLessThanOrEqual(0.1);
        expect(jobs.length).toBeGreaterThan(0);
        expect(jobs.map((j) => j.lowLatency === true)).toEqual(jobs.map(() => profile === "low_latency"));
        // Partials (never finals) may take short windows, except in the accurate profile.
        expect(jobs.some((j) => j.partial)).toBe(true);
        expect(jobs.map((j) => j.shortPartialWindows === true)).toEqual(jobs.map((j) => j.partial && profile !== "accurate"));
      }
    } finally {
      await own.stop();
    }
  }, 120_000);

  test.each(LEOPARD)("%s with solaria-1: language detected as %s, WER reported", async (file, language) => {
    const r = await stream("solaria-1", file);
    expect(r.finals.length).toBeGreaterThan(0);
    expect(r.languages).toEqual(r.languages.map(() => language));
    // A loose bound that catches garbage; the measured value is printed (see also bench/wer).
    expect(report(`${file} solaria-1`, references.get(file)!, r.text)).toBeLessThan(0.6);
  }, 120_000);

  test("leopard_test_it.wav with solaria-1 on whisper-base: WER within 1.1× faster-whisper's on the same weights", async () => {
    // faster-whisper 1.2.1 (the CTranslate2 originals, fp32, beam 5, whole clip) misses 4 of its 11
    // words (bench/wer). whisper-base's unsigned-int8 encoder missed a fifth; its fp32 files and its
    // signed-int8 encoder, which it runs where the CPU has 8-bit dot products, do not.
    const caps = await sharedCoordinator().capabilities();
    if (caps.find((c) => c.model === "solaria-1")?.engine !== "whisper-base") return;
    const wer = report("leopard_test_it.wav solaria-1 (whisper-base)", references.get("leopard_test_it.wav")!, (await stream("solaria-1", "leopard_test_it.wav")).text);
    expect(wer).toBeLessThanOrEqual((1.1 * 4) / 11 + 1e-9);
  }, 120_000);

  test("custom vocabulary reaches the engine as its prompt: the given spelling is used", async () => {
    const r = await streamClip({
      apiUrl: svc.running.url,
      key: svc.key,
      model: "solaria-1",
      wavPath: path.join(sharedAudio, "leopard_test.wav"),
      init: { realtime_processing: { custom_vocabulary: true, custom_vocabulary_config: { vocabulary: ["Kwilter"] } } },
    });
    expect(r.text).toContain("Kwilter");
  }, 120_000);

  test("leopard_empty.wav: no final transcript with text, on either model", async () => {
    for (const model of ["solaria-1", "trantoria-1"]) {
      const r = await stream(model, "leopard_empty.wav", model === "trantoria-1" ? ["en"] : undefined);
      expect(r.finals.filter((f) => f.text.trim() !== "")).toEqual([]);
      expect(r.types).toContain("post_final_transcript");
    }
  }, 120_000);

  test("OSR_us_000_0034_8k.wav (8 kHz telephone speech) with trantoria-1: WER reported", async () => {
    const r = await stream("trantoria-1", "OSR_us_000_0034_8k.wav", ["en"]);
    expect(report("OSR 8 kHz trantoria-1", references.get("OSR_us_000_0034_8k.wav")!, r.text)).toBeLessThan(0.25);
  }, 180_000);
});
