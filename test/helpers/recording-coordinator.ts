/**
 * The in-process recognizer (real weights from `models/`) behind a test's service, each job it is
 * asked recorded and first passed to `gate`, which may hold it back (a busy recognizer, made to
 * order). The service is started on it for the file and stopped after.
 */
import { afterAll, beforeAll } from "bun:test";
import { InProcessCoordinator } from "../../workers/coordinator/in-process.ts";
import type { InferenceCoordinator, InferenceJob } from "../../workers/contract/types.ts";
import { modelsDir, vadModelsDir } from "../asr/models.ts";
import { startTestService, type TestService } from "./server.ts";

/** A job as asked, with when it was asked and when it returned (performance.now() ms). */
export interface RecordedJob {
  job: InferenceJob;
  asked: number;
  returned?: number;
}

/**
 * Starts a service on the recording recognizer before the file's tests (when `ready`) and stops it
 * after. (The recognizer is left running until the process exits, as in transcription.test.ts.)
 */
export function serviceOnRecordingCoordinator(ready: boolean, gate: (job: InferenceJob) => Promise<void> | void): { jobs: RecordedJob[]; service: () => TestService } {
  let real: Promise<InProcessCoordinator> | null = null;
  const recognizer = () => (real ??= InProcessCoordinator.create({ modelsDir, threads: 1, queueLimit: 50, sessionThreads: 1 }));
  const jobs: RecordedJob[] = [];
  const coordinator: InferenceCoordinator = {
    capabilities: async () => (await recognizer()).capabilities(),
    transcribe: async (job, signal) => {
      const entry: RecordedJob = { job, asked: performance.now() };
      jobs.push(entry);
      await gate(job);
      const r = await (await recognizer()).transcribe(job, signal);
      entry.returned = performance.now();
      return r;
    },
    close: async () => {},
  };
  let svc: TestService | undefined;
  beforeAll(async () => {
    if (ready) svc = await startTestService({ modelsDir: vadModelsDir, coordinator });
  });
  afterAll(async () => {
    await svc?.stop();
  });
  return { jobs, service: () => svc! };
}
