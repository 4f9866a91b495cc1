/**
 * A short turn's final when the turn before it is slow to be recognized, with real weights: Whisper
 * tiny.en behind a real service, driven by the official SDK (the clip sent as fast as it goes),
 * partial transcripts on. The first turn's final-settings decodes wait until the second turn's speculative final (its
 * pause) has been asked for, so that decode is asked while the first turn is unrecognized: it has
 * no lead and no prompt. The second turn's final is not that decode: it is decoded once the first
 * turn is recognized, after its lead (`session/lead.ts`), as it would be had the first been quick.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { encodeWav } from "../../workers/dsp/wav.ts";
import { join16k as join } from "../helpers/addon-models.ts";
import { serviceOnRecordingCoordinator } from "../helpers/recording-coordinator.ts";
import { spoken } from "../helpers/speech.ts";
import { requireWeights } from "./models.ts";
import { streamClip } from "./stream.ts";

const ready = requireWeights("whisper-tiny.en");
let release: () => void = () => {};
const secondPaused = new Promise<void>((resolve) => (release = resolve));
// The first turn's final-settings decodes wait for the second turn's speculative final.
const { jobs, service } = serviceOnRecordingCoordinator(ready, async (job) => {
  if (job.utteranceId === "0:1" && job.priority === "speculative") release();
  if (job.utteranceId === "0:0" && !job.request.partial) await secondPaused;
});

describe.skipIf(!ready)("a short turn whose previous turn is still being recognized (tiny.en, partial transcripts on)", () => {
  test("its final is decoded after the previous turn's recognition, with that turn as its lead, not taken from the speculative final asked before", async () => {
    const FIRST = "Please hold the line.";
    const file = path.join(mkdtempSync(path.join(tmpdir(), "streamed-lead-")), "two-turns.wav");
    writeFileSync(file, encodeWav(join(0.5, spoken(FIRST), 1.2, spoken("Two."), 1.5), 16000));
    const r = await streamClip({
      apiUrl: service().running.url,
      key: service().key,
      model: "trantoria-1",
      wavPath: file,
      languages: ["en"],
      init: { messages_config: { receive_partial_transcripts: true, receive_final_transcripts: true } },
    });
    expect(r.finals.length).toBe(2);
    const second = jobs.filter((j) => j.job.utteranceId === "0:1" && !j.job.request.partial);
    // The speculative final was asked while the first turn was unrecognized: no lead.
    const speculative = second.find((j) => j.job.priority === "speculative");
    expect(speculative).toBeDefined();
    expect(speculative!.job.request.lead).toBeUndefined();
    // The final's own decode came after the first turn's last decode returned, led by it.
    const final = second.find((j) => j.job.priority === "final");
    expect(final).toBeDefined();
    const firstDone = Math.max(...jobs.filter((j) => j.job.utteranceId === "0:0" && j.returned !== undefined).map((j) => j.returned!));
    expect(final!.asked).toBeGreaterThanOrEqual(firstDone);
    expect(final!.job.request.lead?.text).toBe(r.finals[0]!.text);
    expect(r.finals[1]!.text.trim()).not.toBe("");
  }, 120_000);
});
