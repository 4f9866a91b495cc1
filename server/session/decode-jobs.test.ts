import { describe, expect, test } from "bun:test";
import type { InferenceCoordinator, InferenceJob } from "../../workers/contract/types.ts";
import { applyDefaults } from "../options/defaults.ts";
import { decodeForStream, transcribe, type DecodeJobs } from "./decode-jobs.ts";
import { LanguageEvidence } from "./language.ts";
import { STREAMING_PROFILES } from "./profiles.ts";
import type { TranscriberHost } from "./transcriber-host.ts";

/** The jobs a stream's decodes become, as the coordinator receives them. */
function recorded(options: Record<string, unknown> = { model: "solaria-1" }): { jobs: DecodeJobs; seen: InferenceJob[] } {
  const seen: InferenceJob[] = [];
  const coordinator = {
    transcribe: async (job: InferenceJob) => (seen.push(job), { text: "", language: "en", confidence: 0, words: [], noSpeech: true }),
  } as unknown as InferenceCoordinator;
  const host = { id: "s1", options: applyDefaults(options as never), coordinator } as unknown as TranscriberHost;
  return { jobs: { host, heard: [], language: new LanguageEvidence(), profile: STREAMING_PROFILES.balanced }, seen };
}

describe("a stream's decode jobs", () => {
  test("a partial, a speculative final, a revision (background) and a final each get their priority; only the revision goes without fallback", async () => {
    const { jobs, seen } = recorded();
    const audio = new Float32Array(16000);
    await decodeForStream(jobs, 0, "0:0", 0, { audio, offset: 0, previousText: "", partial: true }, 1);
    await decodeForStream(jobs, 0, "0:0", 0, { audio, offset: 0, previousText: "", partial: false, speculative: true, beamSize: 5 }, 2);
    await decodeForStream(jobs, 0, "0:0", 0, { audio, offset: 0, previousText: "Earlier words.", partial: false, background: true, beamSize: 5 }, 3);
    await decodeForStream(jobs, 0, "0:0", 0, { audio, offset: 0, previousText: "", partial: false, beamSize: 5 }, 4);
    expect(seen.map((j) => j.priority)).toEqual(["partial", "speculative", "background", "final"]);
    expect(seen.map((j) => j.request.noFallback === true)).toEqual([false, false, true, false]);
    expect(seen[2]!.request).toMatchObject({ partial: false, beamSize: 5, previousText: "Earlier words." });
  });

  test("a decode that detects the language is told the language of its context; its prompt holds only that language", async () => {
    const said = (text: string, language: string) => ({ start: 0, end: 1, confidence: 1, channel: 0, words: [], text, language });
    const heard = [said("スピックス。", "ja"), said("Come here.", "en")];
    const detecting = recorded();
    // The session's evidence so far: it detects each utterance's language.
    detecting.jobs.language.record("0:0", [{ language: "ja", probability: 0.5 }, { language: "en", probability: 0.3 }], 1);
    await transcribe({ ...detecting.jobs, heard }, 0, "0:2", 1, new Float32Array(16000), false);
    expect(detecting.seen[0]!.request).toMatchObject({ previousText: "Come here.", contextLanguage: "en" });
    const fixed = recorded({ model: "solaria-1", language_config: { languages: ["en"] } });
    await transcribe({ ...fixed.jobs, heard }, 0, "0:2", 1, new Float32Array(16000), false);
    expect(fixed.seen[0]!.request.previousText).toBe("Come here.");
    expect(fixed.seen[0]!.request.contextLanguage).toBeUndefined();
  });

  test("a decode's language prior is the other utterances' evidence, not its own partials'", async () => {
    const { jobs, seen } = recorded();
    const audio = new Float32Array(16000);
    jobs.language.record("0:0", [{ language: "en", probability: 0.9 }, { language: "la", probability: 0.1 }], 2);
    jobs.language.record("0:1", [{ language: "la", probability: 0.7 }, { language: "en", probability: 0.3 }], 2, true); // its partial
    await decodeForStream(jobs, 0, "0:1", 0, { audio, offset: 0, previousText: "", partial: false, beamSize: 5 }, 4);
    expect(seen[0]!.request.languagePrior).toEqual({ en: 0, la: Math.log(0.1) - Math.log(0.9) });
    const first = recorded();
    first.jobs.language.record("0:0", [{ language: "la", probability: 0.7 }, { language: "en", probability: 0.3 }], 2, true);
    await decodeForStream(first.jobs, 0, "0:0", 0, { audio, offset: 0, previousText: "", partial: false, beamSize: 5 }, 4);
    expect(first.seen[0]!.request.languagePrior).toBeUndefined();
  });

  test("a decode's language detection stands for the stretch of the utterance it heard; a check for speech is no witness", async () => {
    const jobs = recorded().jobs;
    const heard = (language: string, other: string) => ({ text: "4-0-8-8.", language, confidence: 1, words: [], noSpeech: false, languageProbabilities: [{ language, probability: 0.9 }, { language: other, probability: 0.1 }] });
    let next = heard("en", "la");
    const seen: InferenceJob[] = [];
    jobs.host = { ...jobs.host, coordinator: { transcribe: async (job: InferenceJob) => (seen.push(job), next) } as unknown as InferenceCoordinator };
    const second = new Float32Array(16000);
    await decodeForStream(jobs, 0, "0:0", 0, { audio: new Float32Array(10 * 16000), offset: 0, previousText: "", partial: false, speculative: true, beamSize: 5 }, 1);
    next = heard("la", "en"); // the buffer after a cut: digits heard as Latin
    await decodeForStream(jobs, 0, "0:0", 0, { audio: second, offset: 9.5, previousText: "", partial: false, speculative: true, beamSize: 5 }, 2);
    next = heard("cy", "en"); // a check of a quiet stretch
    await decodeForStream(jobs, 0, "0:0", 0, { audio: second, offset: 10.5, probe: true, previousText: "", partial: false, speculative: true, beamSize: 5 }, 3);
    await decodeForStream(jobs, 0, "0:0", 0, { audio: second, offset: 9.5, previousText: "", partial: false, beamSize: 5 }, 4);
    const prior = seen[3]!.request.languagePrior!;
    expect(prior.en).toBe(0);
    expect(prior.la).toBeLessThan(0);
    expect(prior.cy).toBeUndefined();
  });
});
