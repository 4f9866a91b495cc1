/**
 * A short utterance decoded after a lead (`TranscribeRequest.lead`) on real weights: the result
 * holds the utterance's words only, timed inside it (the lead's utterances placed, as the session
 * gives them); across short replies in several voices it
 * makes no more errors than decoding each reply alone; a lead after which nothing is said falls
 * back to the utterance alone (silence stays silence).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { WhisperEngine } from "../../workers/engines/whisper/index.ts";
import { spoken } from "../helpers/speech.ts";
import { join16k as join } from "../helpers/addon-models.ts";
import { fidelityWords } from "../../bench/fidelity/normalize.ts";
import { align } from "../../bench/fidelity/metrics.ts";
import { modelsDir, requireWeights } from "./models.ts";

const ready = requireWeights("whisper-tiny.en", "whisper-base");
const RATE = 16000;
/** A turn as the front end cuts it: 0.3 s of padding either side. */
const turn = (text: string, voice: string, rate: number) => join(0.3, spoken(text, voice, rate), 0.3);

const LEAD_TURNS = ["Please hold the line.", "Sure."];
const REPLIES = ["Two.", "Seven three nine.", "Check my balance.", "Nope."];
const VOICES: [string, number][] = [["en-us", 150], ["en-gb", 170], ["en-us+f3", 130]];

let engines: [string, WhisperEngine][] = [];
beforeAll(async () => {
  if (!ready) return;
  const assetsDir = path.join(modelsDir, "whisper-assets");
  engines = [
    ["whisper-tiny.en", await WhisperEngine.load({ modelDir: path.join(modelsDir, "whisper-tiny.en"), assetsDir, name: "whisper-tiny.en", preferQuantized: "encoder" })],
    ["whisper-base", await WhisperEngine.load({ modelDir: path.join(modelsDir, "whisper-base"), assetsDir, name: "whisper-base", preferQuantized: "signed-encoder" })],
  ];
});
afterAll(async () => {
  for (const [, e] of engines) await e.dispose();
});

describe.skipIf(!ready)("a short utterance heard after a lead", () => {
  test("the result is the utterance's words only, timed inside it, with no more errors than alone", async () => {
    for (const [name, engine] of engines) {
      let alone = 0;
      let led = 0;
      for (const [voice, rate] of VOICES) {
        const leadTurns = LEAD_TURNS.map((t) => turn(t, voice, rate));
        const leadAudio = join(leadTurns[0]!, 1, leadTurns[1]!, 1.2);
        // where the session's lead places them (session/lead.ts): each turn's audio, padding included
        const second = (leadTurns[0]!.length + RATE) / RATE;
        const segments = [
          { start: 0, end: leadTurns[0]!.length / RATE, text: LEAD_TURNS[0]! },
          { start: second, end: second + leadTurns[1]!.length / RATE, text: LEAD_TURNS[1]! },
        ];
        for (const reply of REPLIES) {
          const audio = turn(reply, voice, rate);
          const ref = fidelityWords(reply);
          const a = await engine.transcribe({ audio, partial: false, languages: ["en"], previousText: LEAD_TURNS.join(" ") });
          const r = await engine.transcribe({ audio: join(leadAudio, audio), partial: false, languages: ["en"], lead: { samples: leadAudio.length, text: LEAD_TURNS.join(" "), segments } });
          const seconds = audio.length / RATE;
          console.log(`${name} ${voice} "${reply}": alone «${a.text}», led «${r.text}»`);
          expect(fidelityWords(r.text).filter((w) => ["please", "hold", "line", "sure"].includes(w))).toEqual([]);
          let last = 0;
          for (const w of r.words) {
            expect(w.start).toBeGreaterThanOrEqual(last - 1e-6);
            expect(w.end).toBeGreaterThanOrEqual(w.start);
            expect(w.end).toBeLessThanOrEqual(seconds + 0.05);
            last = w.end;
          }
          alone += align(ref, fidelityWords(a.text)).edits;
          led += align(ref, fidelityWords(r.text)).edits;
        }
      }
      console.log(`${name}: word errors over ${VOICES.length * REPLIES.length} replies: alone ${alone}, led ${led}`);
      expect(led).toBeLessThanOrEqual(alone);
    }
  }, 240_000);

  test("nothing said after the lead (given without segments: an untimed prefix): silence, as without it", async () => {
    const leadAudio = join(turn("Please hold the line.", "en-us", 150), 1);
    const hiss = Float32Array.from({ length: RATE }, (_, i) => 0.002 * Math.sin(i * 12.9898) * Math.cos(i * 78.233));
    for (const [name, engine] of engines) {
      const r = await engine.transcribe({ audio: join(leadAudio, hiss), partial: false, languages: ["en"], lead: { samples: leadAudio.length, text: "Please hold the line." } });
      console.log(`${name} hiss after a lead: «${r.text}»`);
      expect(r.text).toBe("");
      expect(r.words).toEqual([]);
    }
  }, 120_000);
});
