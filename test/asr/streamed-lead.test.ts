/**
 * A short turn's final when the turn before it is slow to be recognized, with real weights: Whisper
 * tiny.en behind a real service, driven by the official SDK (the clip sent as fast as it goes),
 * partial transcripts on. The first turn's final-settings decodes are held for a few seconds, long
 * enough for the second turn's pause (and its endpointing window) to be heard meanwhile. The second
 * turn's final-settings decode waits for the first turn's recognition and is decoded once, after its
 * lead (`session/lead.ts`), as it would be had the first been quick: no speculative final is spent
 * on a decode without that lead, which the final could not use.
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
const HOLD_MS = 4000;
// The first turn's final-settings decodes wait, as behind a busy recognizer.
const { jobs, service } = serviceOnRecordingCoordinator(ready, async (job) => {
  if (job.utteranceId === "0:0" && !job.request.partial) await Bun.sleep(HOLD_MS);
});

describe.skipIf(!ready)("a short turn whose previous turn is still being recognized (tiny.en, partial transcripts on)", () => {
  test("its one final-settings decode comes after the previous turn's recognition, with that turn as its lead", async () => {
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
    const firstAsked = Math.min(...jobs.filter((j) => j.job.utteranceId === "0:0" && !j.job.request.partial).map((j) => j.asked));
    const firstDone = Math.max(...jobs.filter((j) => j.job.utteranceId === "0:0" && j.returned !== undefined).map((j) => j.returned!));
    // The first was held long enough for the second turn and its pause to be heard meanwhile (the
    // clip is sent faster than it is spoken, and the two are 1.6 s apart in it)…
    expect(firstDone - firstAsked).toBeGreaterThanOrEqual(HOLD_MS - 50);
    // …and the second's one final-settings decode (speculative or final) came after the first's, led by it.
    expect(second.length).toBe(1);
    expect(second[0]!.asked).toBeGreaterThanOrEqual(firstDone);
    expect(second[0]!.job.request.lead?.text).toBe(r.finals[0]!.text);
    expect(r.finals[1]!.text.trim()).not.toBe("");
  }, 120_000);
});
