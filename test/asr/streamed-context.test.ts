/**
 * The prompt of a streamed utterance (partial transcripts on) with real weights: Whisper tiny.en
 * behind a real service, driven by the official SDK. The first two Harvard sentences of
 * `OSR_us_000_0034_8k.wav`; the first one's final is held back until the second utterance's first
 * partial has been asked for (a busy recognizer), and the client sends the rest of the second
 * sentence once that final has arrived. The second utterance's later decodes, its final among
 * them, are prompted with the first sentence, as a decode of the whole clip is conditioned on it.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { encodeWav, readWavFile } from "../../workers/dsp/wav.ts";
import { serviceOnRecordingCoordinator } from "../helpers/recording-coordinator.ts";
import { sharedAudio } from "../helpers/server.ts";
import { requireWeights } from "./models.ts";
import { streamClip } from "./stream.ts";
import { wordErrorRate } from "./wer.ts";

const ready = requireWeights("whisper-tiny.en");
const FIRST = "A gold ring will please most any girl.";
const SECOND = "The long journey home took a year.";

let secondStarted: () => void = () => {};
const secondUtterance = new Promise<void>((resolve) => (secondStarted = resolve));
// The first utterance's final-settings decodes wait until a partial of the second one is asked for.
const recorded = serviceOnRecordingCoordinator(ready, async (job) => {
  if (job.utteranceId === "0:1" && job.request.partial) secondStarted();
  if (job.utteranceId === "0:0" && !job.request.partial) await secondUtterance;
});
/** Every job asked of the recognizer, in order. */
const jobs = () => recorded.jobs.map((r) => r.job);

describe.skipIf(!ready)("a streamed utterance's prompt (tiny.en, partial transcripts on)", () => {
  test("decodes after the previous final was recognized are prompted with it, though the utterance began before", async () => {
    const wav = readWavFile(path.join(sharedAudio, "OSR_us_000_0034_8k.wav"));
    // The first two sentences (speech 1.1–3.9 s and 4.6–6.9 s) and the pause after them.
    const file = path.join(mkdtempSync(path.join(tmpdir(), "streamed-context-")), "two-sentences.wav");
    writeFileSync(file, encodeWav(wav.samples.subarray(0, Math.round(7.3 * wav.sampleRate)), wav.sampleRate));
    const r = await streamClip({
      apiUrl: recorded.service().running.url,
      key: recorded.service().key,
      model: "trantoria-1",
      wavPath: file,
      languages: ["en"],
      init: { messages_config: { receive_partial_transcripts: true, receive_final_transcripts: true } },
      // 5.6 s: the second utterance has begun (its first partial is due 0.5 s after its start).
      holdAt: { seconds: 5.6, finals: 1 },
    });
    expect(r.finals.length).toBe(2);
    const first = r.finals[0]!.text;
    expect(wordErrorRate(FIRST, first)).toBe(0);
    const second = jobs().filter((j) => j.utteranceId === "0:1");
    // Its first partial was decoded before the first final was recognized: without that text.
    expect(second[0]!.request.partial).toBe(true);
    expect(second[0]!.request.previousText ?? "").not.toContain(first);
    // Its final-settings decodes came after (the client sent the rest once the first final arrived).
    const finalSettings = second.filter((j) => !j.request.partial);
    expect(finalSettings.length).toBeGreaterThan(0);
    // The second utterance is short: those decodes hear the first one's audio before it, with its
    // text as their forced start (the lead, session/lead.ts), and nothing before it as the prompt.
    for (const j of finalSettings) {
      expect(j.request.lead?.text).toBe(first);
      expect(j.request.previousText).toBeUndefined();
    }
    expect(wordErrorRate(SECOND, r.finals[1]!.text)).toBe(0);
  }, 180_000);
});
