/**
 * `language_config.code_switching` is applied: without it (the default) the language the session's
 * utterances settle on (the first's evidence outweighs the second's detection here) is kept for the
 * rest of the session; with it, every utterance is detected again. Real multilingual Whisper (whisper-base serving solaria-1) over a real socket, on an
 * English clip followed by a German one.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { InProcessCoordinator } from "../../workers/coordinator/in-process.ts";
import { modelsDir, requireModels, vadModelsDir } from "../helpers/models.ts";
import { startTestService, type TestService } from "../helpers/server.ts";
import { chunks, createSession, RawClient, speechSamples, toPcm16 } from "./helpers.ts";

// whisper-base on a shared 2-core machine
setDefaultTimeout(180_000);

let svc: TestService;

beforeAll(async () => {
  requireModels("whisper-base");
  const dir = mkdtempSync(path.join(tmpdir(), "models-multilingual-"));
  for (const id of ["whisper-base", "whisper-assets"]) symlinkSync(path.join(modelsDir, id), path.join(dir, id));
  mkdirSync(path.join(dir, "silero-vad"));
  symlinkSync(path.join(vadModelsDir, "silero-vad", "silero_vad.onnx"), path.join(dir, "silero-vad", "silero_vad.onnx"));
  const real = await InProcessCoordinator.create({ modelsDir: dir, threads: 2, queueLimit: 50 });
  // left running (see test/pipeline/helpers.ts: stopping it beside the VAD's session aborts the process)
  svc = await startTestService({ modelsDir: dir, coordinator: { capabilities: () => real.capabilities(), transcribe: (j, s) => real.transcribe(j, s), close: async () => {} } });
}, 180_000);
afterAll(() => svc.stop());

/** The final utterances' languages of one session over the English then the German clip. */
async function languages(codeSwitching: boolean | undefined): Promise<string[]> {
  const init = {
    model: "solaria-1",
    messages_config: { receive_partial_transcripts: false },
    ...(codeSwitching === undefined ? {} : { language_config: { code_switching: codeSwitching } }),
  };
  const { url } = await createSession(svc, init);
  const client = new RawClient(url);
  await client.opened;
  for (const c of chunks(toPcm16(speechSamples(["leopard_test.wav", "leopard_test_de.wav"], 1.5)), 3200)) client.send(c);
  client.stop();
  expect((await client.closed).code).toBe(1000);
  return client.finals().map((m) => m.data.utterance.language as string);
}

describe("language_config.code_switching", () => {
  test("true: each utterance in its own language", async () => {
    expect(await languages(true)).toEqual(["en", "de"]);
  });

  test("false, and by default: the language of the session's evidence so far for the rest of it", async () => {
    expect(await languages(false)).toEqual(["en", "en"]);
    expect(await languages(undefined)).toEqual(["en", "en"]);
  });
});
