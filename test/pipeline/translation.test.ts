/**
 * Translation on `solaria-3` end to end: one `translation` message per final, made by the
 * recognizer's own translate task into English; any other target, and translation with PII
 * redaction, refused with close 1011 `rejected:`. The recognizer here is the Whisper fixture of the
 * real export's signature (no Whisper weights in the shared models); the engine's translate task
 * itself is tested in workers/engines/whisper.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, readdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { InProcessCoordinator } from "../../workers/coordinator/in-process.ts";
import type { InferenceCoordinator, InferenceJob } from "../../workers/contract/types.ts";
import { buildFixtures } from "../../workers/fixtures/build.ts";
import { againstCloudAsyncapi as againstCloud } from "../helpers/cloud.ts";
import { sharedAudio, sharedModels, startTestService, type TestService } from "../helpers/server.ts";
import { chunks, contractErrors, createSession, RawClient, toPcm16 } from "./helpers.ts";

// Real models on a shared machine: allow for a loaded CPU.
setDefaultTimeout(60_000);

let svc: TestService;
const jobs: InferenceJob[] = [];
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "models-translate-"));
  for (const name of readdirSync(sharedModels)) if (name !== "whisper-assets") symlinkSync(path.join(sharedModels, name), path.join(dir, name));
  buildFixtures(dir);
  const real = await InProcessCoordinator.create({ modelsDir: dir, threads: 1, queueLimit: 50 });
  // Records each job on its way to the real coordinator (left running: see test/pipeline/helpers.ts).
  const coordinator: InferenceCoordinator = {
    capabilities: () => real.capabilities(),
    transcribe: (job, signal) => (jobs.push(job), real.transcribe(job, signal)),
    close: async () => {},
  };
  svc = await startTestService({ modelsDir: dir, coordinator });
}, 120_000);
afterAll(() => svc.stop());

const speech = () => readWavFile(path.join(sharedAudio, "jfk.wav")).samples;
const init = (targets: string[], extra: Record<string, unknown> = {}) => ({
  model: "solaria-3",
  language_config: { languages: ["fr"] },
  realtime_processing: { translation: true, translation_config: { target_languages: targets } },
  ...extra,
});

async function run(body: Record<string, unknown>) {
  const { url } = await createSession(svc, body);
  const client = new RawClient(url);
  await client.opened;
  for (const c of chunks(toPcm16(speech()), 6400)) client.send(c);
  client.stop();
  return { client, close: await client.closed };
}

describe("translation", () => {
  test("capabilities: solaria-3 translates into English only", async () => {
    const res = await fetch(`${svc.running.url}/v2/live/capabilities`, { headers: { "x-service-key": svc.key } });
    const body = (await res.json()) as { models: { model: string; features: string[]; translation_targets: string[] }[] };
    const s3 = body.models.find((m) => m.model === "solaria-3")!;
    expect(s3.features).toContain("translation");
    expect(s3.translation_targets).toEqual(["en"]);
    expect(body.models.find((m) => m.model === "solaria-1")!.features).not.toContain("translation");
  });

  test("each final is followed by its translation into English, made with the translate task", async () => {
    jobs.length = 0;
    const { client, close } = await run(init(["en"]));
    expect(close.code).toBe(1000);
    const finals = client.finals();
    const translations = client.messages.filter((m) => m.type === "translation");
    expect(finals.length).toBeGreaterThan(0);
    expect(translations).toHaveLength(finals.length);
    translations.forEach((t, i) => {
      expect(contractErrors(t)).toEqual([]);
      expect(againstCloud("TranslationMessage", t)).toEqual([]);
      expect(t.error).toBeNull();
      expect(t.data.utterance_id).toBe(finals[i]!.data.id);
      expect(t.data.utterance).toEqual(finals[i]!.data.utterance);
      expect(t.data.original_language).toBe("fr");
      expect(t.data.target_language).toBe("en");
      expect(t.data.translated_utterance.language).toBe("en");
      expect(t.data.translated_utterance.text.length).toBeGreaterThan(0);
      expect([t.data.translated_utterance.start, t.data.translated_utterance.end]).toEqual([finals[i]!.data.utterance.start, finals[i]!.data.utterance.end]);
    });
    const translateJobs = jobs.filter((j) => j.request.task === "translate");
    expect(translateJobs).toHaveLength(finals.length);
    expect(translateJobs.every((j) => j.request.targetLanguage === "en" && !j.request.partial)).toBe(true);
  }, 60_000);

  test("a target the model does not serve, or translation with pii, closes 1011 rejected:", async () => {
    const de = await run(init(["de"]));
    expect(de.close.code).toBe(1011);
    expect(de.close.reason).toMatch(/^rejected: translation target de not served by solaria-3/);
    const pii = await run(init(["en"], { pii: { entities: "pii" } }));
    expect(pii.close.code).toBe(1011);
    expect(pii.close.reason).toMatch(/^rejected: translation cannot be combined with pii redaction/);
  });
});
