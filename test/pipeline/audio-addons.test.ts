/**
 * The audio add-ons end to end over real sockets, with the real models: end of turn (Smart Turn),
 * diarization (the speaker encoder), text add-ons on synthesized speech (punctuation: false, custom
 * vocabulary, number hold), and capabilities that list exactly the add-ons that run.
 * Every message is checked against our contracts (`end_of_turn` and `end_of_turn_score` are
 * service-only: the cloud variant has no schema for them).
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import path from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { SMART_TURN_ID, SPEAKER_ID } from "../../workers/catalogue/index.ts";
import { join16k, modelsWith, speak } from "../helpers/addon-models.ts";
import { InProcessCoordinator } from "../../workers/coordinator/in-process.ts";
import { loadVad } from "../../server/server.ts";
import type { InferenceCoordinator } from "../../workers/contract/types.ts";
import { sharedAudio, startTestService, type TestService } from "../helpers/server.ts";
import { chunks, contractErrors, createSession, interleave16, RawClient, toPcm16, words, type Msg } from "./helpers.ts";
import { digitWords } from "../helpers/text.ts";

// Real models on a shared machine: allow for a loaded CPU.
setDefaultTimeout(60_000);

let svc: TestService;
let plain: TestService;
/** The models directory of `svc` (its batched VAD is `loadVad(withAddons)`). */
let withAddons: string;
let q1: Float32Array;
let q2: Float32Array;
/** The real in-process coordinator on `dir`, left running (see test/pipeline/helpers.ts). */
async function coordinatorOn(dir: string): Promise<InferenceCoordinator> {
  const real = await InProcessCoordinator.create({ modelsDir: dir, threads: 1, queueLimit: 200 });
  return { capabilities: () => real.capabilities(), transcribe: (job, signal) => real.transcribe(job, signal), close: async () => {} };
}

beforeAll(async () => {
  // trantoria-1 (whisper-tiny.en) with the add-on models, and the same without them
  withAddons = await modelsWith([SMART_TURN_ID, SPEAKER_ID]);
  const without = await modelsWith([]);
  svc = await startTestService({ modelsDir: withAddons, coordinator: await coordinatorOn(withAddons) });
  plain = await startTestService({ modelsDir: without, coordinator: await coordinatorOn(without) });
  q1 = speak("What time does the train to London leave tomorrow morning?");
  q2 = speak("Could you tell me where the nearest pharmacy is?");
}, 180_000);
afterAll(async () => {
  await svc.stop();
  await plain.stop();
});

// partial transcripts off: the recognizer runs on finals only, which is all these tests read
const base = { model: "trantoria-1", language_config: { languages: ["en"] }, messages_config: { receive_partial_transcripts: false } };

async function run(service: TestService, init: Record<string, unknown>, audio: Float32Array): Promise<{ client: RawClient; close: { code: number; reason: string } }> {
  const { url } = await createSession(service, init);
  const client = new RawClient(url);
  await client.opened;
  for (const c of chunks(toPcm16(audio), 3200)) client.send(c);
  client.stop();
  const close = await client.closed;
  for (const m of client.messages) expect(contractErrors(m)).toEqual([]);
  return { client, close };
}

const ofType = (ms: Msg[], type: string) => ms.filter((m) => m.type === type);

async function post(service: TestService, body: Record<string, unknown>) {
  const res = await fetch(`${service.running.url}/v2/live`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-key": service.key },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { message: string } };
}

async function capabilities(service: TestService): Promise<Record<string, string[]>> {
  const res = await fetch(`${service.running.url}/v2/live/capabilities`, { headers: { "x-service-key": service.key } });
  const body = (await res.json()) as { models: { model: string; features: string[] }[] };
  return Object.fromEntries(body.models.map((m) => [m.model, m.features]));
}

describe("capabilities tell the truth", () => {
  test("end_of_turn and diarization are listed only where their models are installed", async () => {
    expect((await capabilities(svc))["trantoria-1"]).toEqual(expect.arrayContaining(["end_of_turn", "diarization"]));
    const without = (await capabilities(plain))["trantoria-1"]!;
    expect(without).not.toContain("end_of_turn");
    expect(without).not.toContain("diarization");
  });

  test("a deployment without the models refuses them at POST with a 500 that says why", async () => {
    const eot = await post(plain, { ...base, end_of_turn: {} });
    expect(eot.status).toBe(500);
    expect(eot.body.message).toMatch(/^no inference endpoint available: end_of_turn: the end-of-turn model is not installed/);
    const dia = await post(plain, { ...base, diarization: true });
    expect(dia.status).toBe(500);
    expect(dia.body.message).toMatch(/diarization: the speaker-embedding model is not installed/);
    expect((await post(svc, { ...base, end_of_turn: {}, diarization: true })).status).toBe(201);
  });
});

/**
 * Add-ons whose effect a session test observes: here (end of turn, diarization, punctuation, custom
 * vocabulary, number hold), in text-addons.test.ts (pii, numerals, named entities, sentiment), in
 * translation.test.ts (translation) and in test/streaming/word-times.test.ts (accurate word
 * timestamps: jfk.wav's words where faster-whisper's cross-attention alignment puts them).
 */
const OBSERVED = new Set([
  "end_of_turn",
  "diarization",
  "translation",
  "pii",
  "numerals",
  "named_entity_recognition",
  "sentiment_analysis",
  "punctuation",
  "custom_vocabulary",
  "number_hold",
  "words_accurate_timestamps",
]);
/** Not an add-on a session asks for: how the recognizer picks the language. */
const NOT_ADDONS = new Set(["language_detection"]);

describe("every advertised add-on runs", () => {
  test("each add-on in the capabilities is observed by a session test", async () => {
    for (const [model, features] of Object.entries(await capabilities(svc))) {
      const unaccounted = features.filter((f) => !OBSERVED.has(f) && !NOT_ADDONS.has(f));
      expect([model, unaccounted]).toEqual([model, []]);
    }
  });
});

describe("end_of_turn", () => {
  test("two questions 1.5 s apart: two end_of_turn messages by the model, one score per evaluation, with the published defaults", async () => {
    const defaults = (await (await fetch(`${svc.running.url}/v2/live/defaults`, { headers: { "x-service-key": svc.key } })).json()) as {
      end_of_turn: { threshold: number; silence_ms: number; stop_s: number };
    };
    const { threshold, silence_ms } = defaults.end_of_turn;
    expect(defaults.end_of_turn.stop_s).toBeGreaterThan(1); // the 1.5 s pause is judged by the model, not by stop_s alone
    const audio = join16k(0.5, q1, 1.5, q2, 1.5);
    const { client, close } = await run(svc, { ...base, end_of_turn: { emit_scores: true } }, audio);
    expect(close.code).toBe(1000);
    const ends = ofType(client.messages, "end_of_turn");
    expect(ends.map((m) => m.data.reason)).toEqual(["model", "model"]);
    const q1End = 0.5 + q1.length / 16000;
    const q2End = q1End + 1.5 + q2.length / 16000;
    expect(ends[0]!.data.end).toBeGreaterThan(q1End - 0.5);
    expect(ends[0]!.data.end).toBeLessThanOrEqual(q1End);
    expect(ends[1]!.data.end).toBeGreaterThan(q2End - 0.5);
    expect(ends[1]!.data.end).toBeLessThanOrEqual(q2End);
    for (const e of ends) {
      expect(e.data.channel).toBe(0);
      expect(e.data.probability).toBeGreaterThan(threshold);
      expect(e.data.speech_duration).toBeGreaterThan(1.5);
    }
    const scores = ofType(client.messages, "end_of_turn_score");
    expect(scores.length).toBeGreaterThanOrEqual(2);
    expect(scores.filter((s) => s.data.ended)).toHaveLength(2);
    for (const s of scores) {
      expect(s.data.threshold).toBe(threshold);
      expect(s.data.ended).toBe(s.data.probability > threshold);
      expect(s.data.silence_ms).toBeGreaterThanOrEqual(silence_ms);
    }
    // every turn message precedes the results of the recording
    expect(client.types().lastIndexOf("end_of_turn")).toBeLessThan(client.types().indexOf("post_final_transcript"));
  });

  test("scores only when asked; a session that does not ask for end_of_turn gets none; stop_s times a turn out", async () => {
    const audio = join16k(0.5, q1, 1.5);
    const quiet = await run(svc, { ...base, end_of_turn: {} }, audio);
    expect(ofType(quiet.client.messages, "end_of_turn")).toHaveLength(1);
    expect(ofType(quiet.client.messages, "end_of_turn_score")).toHaveLength(0);
    const off = await run(svc, base, audio);
    expect(ofType(off.client.messages, "end_of_turn")).toHaveLength(0);
    const strict = await run(svc, { ...base, end_of_turn: { threshold: 0.999, stop_s: 1, reeval_ms: 300, emit_scores: true } }, audio);
    const [end] = ofType(strict.client.messages, "end_of_turn");
    expect(end!.data.reason).toBe("timeout");
    expect(ofType(strict.client.messages, "end_of_turn_score").map((s) => s.data.silence_ms)).toEqual([200, 500, 800]);
  });

  test("real speech over background noise: silence is told by the VAD within its chunk, so each silence is first evaluated at silence_ms", async () => {
    const jfk = readWavFile(path.join(sharedAudio, "jfk.wav")).samples; // background noise around −40 dBFS
    const { client } = await run(svc, { ...base, end_of_turn: { emit_scores: true } }, join16k(jfk, 1.5));
    const scores = ofType(client.messages, "end_of_turn_score");
    const firsts = scores.filter((s, i) => i === 0 || s.data.silence_ms <= scores[i - 1]!.data.silence_ms);
    expect(firsts.length).toBeGreaterThanOrEqual(2);
    for (const s of firsts) expect(s.data.silence_ms).toBe(200);
    const last = ofType(client.messages, "end_of_turn").at(-1)!;
    expect(last.data.reason).toBe("model");
    expect(last.data.end).toBeGreaterThan(10.2); // "... what you can do for your country." ends near 10.6 s
    expect(last.data.end).toBeLessThan(11.0);
  });
});

describe("end_of_turn frees its VAD streams", () => {
  test("after 4 two-channel sessions with end_of_turn the batched VAD holds no slot for them", async () => {
    const vad = await loadVad(withAddons); // the service's own (one per model file)
    const before = vad.slotsHeld;
    const stereo = interleave16([toPcm16(join16k(0.3, q1, 0.8)), toPcm16(join16k(0.6, q2, 0.5))]);
    for (let i = 0; i < 4; i++) {
      const { url } = await createSession(svc, { ...base, channels: 2, end_of_turn: {} });
      const client = new RawClient(url);
      await client.opened;
      for (const c of chunks(stereo, 6400)) client.send(c);
      client.stop();
      expect((await client.closed).code).toBe(1000);
      expect(ofType(client.messages, "end_of_turn").length).toBeGreaterThan(0);
    }
    // (slots are given back as the sessions' last evaluations settle, just after the socket closes)
    for (let i = 0; i < 50 && vad.slotsHeld > before; i++) await Bun.sleep(100);
    expect(vad.slotsHeld).toBe(before);
  });
});

describe("diarization", () => {
  const clip = () => readWavFile(path.join(sharedAudio, "leopard_diarization_test.wav")).samples;
  /** Reference speakers of the clip by time (from its tags and levels). */
  const referenceAt = (t: number) => (t < 5 ? 1 : t < 12 ? 2 : 3);

  test("utterances carry the speaker; three speakers told apart; the stored result has them", async () => {
    const { client } = await run(svc, { ...base, diarization: true }, clip());
    const utterances = client.finals().map((m) => m.data.utterance);
    expect(utterances.length).toBeGreaterThanOrEqual(3);
    const byRef = new Map<number, Set<number>>();
    for (const u of utterances) {
      expect(Number.isInteger(u.speaker)).toBe(true);
      const ref = referenceAt((u.start + u.end) / 2);
      if (!byRef.has(ref)) byRef.set(ref, new Set());
      byRef.get(ref)!.add(u.speaker);
    }
    // each reference speaker maps to one speaker, and different ones to different speakers
    expect([...byRef.values()].every((s) => s.size === 1)).toBe(true);
    expect(new Set([...byRef.values()].map((s) => [...s][0])).size).toBe(byRef.size);
    expect(byRef.size).toBe(3);
    const post = client.messages.find((m) => m.type === "post_final_transcript")!;
    expect(post.data.transcription.utterances.map((u: { speaker: number }) => u.speaker)).toEqual(utterances.map((u) => u.speaker));
  });

  test("diarization_config.number_of_speakers caps the speakers", async () => {
    const { client } = await run(svc, { ...base, diarization: true, diarization_config: { number_of_speakers: 1 } }, clip());
    expect(new Set(client.finals().map((m) => m.data.utterance.speaker))).toEqual(new Set([0]));
  });
});

describe("text add-ons on synthesized speech", () => {
  // whisper-tiny.en writes the made-up name as "Mr. Wilter" unless the vocabulary names it
  const kwilter = () => join16k(0.5, speak("This is Mister Kwilter speaking."), 1.5);
  const finalTexts = (client: RawClient) => client.finals().map((m) => m.data.utterance.text as string);

  test("punctuation: false drops the marks the recognizer writes; custom_vocabulary writes the entry's value", async () => {
    const audio = kwilter();
    const [plainText] = finalTexts((await run(svc, base, audio)).client);
    expect(plainText).toMatch(/[.,?!]/);
    expect(words(plainText!)).toBe("this is mr wilter speaking");
    const unpunctuated = finalTexts((await run(svc, { ...base, punctuation: false }, audio)).client);
    expect(unpunctuated).toHaveLength(1);
    expect(unpunctuated[0]).not.toMatch(/[.,?!]/);
    expect(words(unpunctuated[0]!)).toBe(words(plainText!));
    const vocabulary = { realtime_processing: { custom_vocabulary: true, custom_vocabulary_config: { vocabulary: ["Kwilter"] } } };
    const named = finalTexts((await run(svc, { ...base, ...vocabulary }, audio)).client);
    expect(named).toHaveLength(1);
    expect(named[0]).toMatch(/\bKwilter\b/);
    expect(words(named[0]!)).toBe(words(plainText!).replace("wilter", "kwilter"));
  });

  test("number_hold on audio time: streamed in real time, a long continuation recognized seconds after the held final is still joined", async () => {
    // The continuation lasts about 4 s: its final cannot come within 1.2 s (wall clock) of the held
    // one's, so only a hold that reads the audio (the next utterance began 0.9 s after) joins them.
    const audio = join16k(0.5, speak("My number is four one five"), 0.9, speak("five five five two, and I am calling about my order from last week"), 1.5);
    const { url } = await createSession(svc, base);
    const client = new RawClient(url);
    await client.opened;
    const t0 = performance.now();
    let i = 0;
    for (const c of chunks(toPcm16(audio), 3200)) {
      const wait = t0 + i++ * 100 - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      client.send(c);
    }
    client.stop();
    expect((await client.closed).code).toBe(1000);
    // Which decode gives the final depends on the wall clock here, and Whisper writes "415" or "four one five".
    const finals = client.finals().map((m) => digitWords(m.data.utterance.text as string));
    expect(finals).toHaveLength(1);
    expect(finals[0]).toStartWith("my number is four one five five"); // (the recognizer may drop one of the repeated fives)
    expect(finals[0]).toContain("my order from last week");
  });

  test("number_hold: a number split by a 0.9 s pause is one final; with turn_router: true it is two", async () => {
    // 0.9 s is past the endpointer's 0.64 s of silence (two utterances) and within the 1.2 s hold (of
    // audio). The audio goes out at once.
    const audio = join16k(0.5, speak("My number is four one five"), 0.9, speak("five five five two"), 1.5);
    const held = (await run(svc, base, audio)).client.finals().map((m) => m.data.utterance);
    expect(held).toHaveLength(1);
    expect(digitWords(held[0]!.text)).toBe("my number is four one five five five five two");
    const routed = (await run(svc, { ...base, turn_router: true }, audio)).client.finals().map((m) => m.data.utterance);
    expect(routed.map((u) => digitWords(u.text))).toEqual(["my number is four one five", "five five five two"]);
    expect(routed[1]!.start).toBeGreaterThan(routed[0]!.end);
    expect(held[0]!.start).toBe(routed[0]!.start);
    expect(held[0]!.end).toBe(routed[1]!.end);
  });
});
