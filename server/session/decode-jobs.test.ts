import { describe, expect, test } from "bun:test";
import type { InferenceCoordinator, InferenceJob } from "../../workers/contract/types.ts";
import { applyDefaults } from "../options/defaults.ts";
import { decodeForStream, type DecodeJobs } from "./decode-jobs.ts";
import { LanguageEvidence } from "./language.ts";
import { STREAMING_PROFILES } from "./profiles.ts";
import type { TranscriberHost } from "./transcriber-host.ts";

/** The jobs a stream's decodes become, as the coordinator receives them. */
function recorded(): { jobs: DecodeJobs; seen: InferenceJob[] } {
  const seen: InferenceJob[] = [];
  const coordinator = {
    transcribe: async (job: InferenceJob) => (seen.push(job), { text: "", language: "en", confidence: 0, words: [], noSpeech: true }),
  } as unknown as InferenceCoordinator;
  const host = { id: "s1", options: applyDefaults({ model: "solaria-1" } as never), coordinator } as unknown as TranscriberHost;
  return { jobs: { host, heard: [], language: new LanguageEvidence(), profile: STREAMING_PROFILES.balanced }, seen };
}

describe("a stream's decode jobs", () => {
  test("a partial, a speculative final, a revision (background) and a final each get their priority; only the revision goes without fallback", async () => {
    const { jobs, seen } = recorded();
    const audio = new Float32Array(16000);
    await decodeForStream(jobs, 0, "0:0", 0, { audio, previousText: "", partial: true }, 1);
    await decodeForStream(jobs, 0, "0:0", 0, { audio, previousText: "", partial: false, speculative: true, beamSize: 5 }, 2);
    await decodeForStream(jobs, 0, "0:0", 0, { audio, previousText: "Earlier words.", partial: false, background: true, beamSize: 5 }, 3);
    await decodeForStream(jobs, 0, "0:0", 0, { audio, previousText: "", partial: false, beamSize: 5 }, 4);
    expect(seen.map((j) => j.priority)).toEqual(["partial", "speculative", "background", "final"]);
    expect(seen.map((j) => j.request.noFallback === true)).toEqual([false, false, true, false]);
    expect(seen[2]!.request).toMatchObject({ partial: false, beamSize: 5, previousText: "Earlier words." });
  });
});
