import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readWavFile } from "../../dsp/wav.ts";
import { type LogitRow, type WhisperScript, writeWhisperFixture } from "../../fixtures/whisper-fixture.ts";
import { WhisperTokenizer } from "../../tokenizer/whisper.ts";
import type { DecoderCallTrace } from "./decoder.ts";
import { encoderWindowSamples } from "./decoding-options.ts";
import { WhisperEngine } from "./engine.ts";
import type { WhisperEngineOptions, WhisperTranscribeRequest } from "./engine-types.ts";
import { loadEngine } from "./index.ts";
import { favour } from "./search.ts";
import { tokensToSegments } from "./segments.ts";

const ASSETS = resolve(import.meta.dir, "../../../../shared/models/whisper-assets");
const AUDIO = resolve(import.meta.dir, "../../../../shared/audio");
const tk = WhisperTokenizer.load(ASSETS);
const jfk = readWavFile(join(AUDIO, "jfk.wav")).samples;
const root = mkdtempSync(join(tmpdir(), "whisper-fixture-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ts = (seconds: number) => tk.timestampBegin + Math.round(seconds / 0.02);
const one = (text: string) => {
  const ids = tk.encode(text);
  expect(ids.length).toBe(1);
  return ids[0];
};
const lang = (code: string) => tk.languageToken(code);

/** A script forcing `plan` after a 3-token prompt, with `first` as the row after <|startoftranscript|>. */
function forced(plan: number[], first: LogitRow = { [lang("en")]: 5 }, extra: Partial<WhisperScript> = {}): WhisperScript {
  const positions: LogitRow[] = [first, {}, ...plan.map((t) => ({ [t]: 10 })), { [tk.eot]: 10 }];
  return { positions, ...extra };
}

let fixtureCount = 0;
async function engineFor(script: WhisperScript, opts: Partial<WhisperEngineOptions> = {}) {
  const dir = join(root, `m${fixtureCount++}`);
  writeWhisperFixture(dir, { script });
  const calls: DecoderCallTrace[] = [];
  const engine = await WhisperEngine.load({
    modelDir: dir,
    assetsDir: ASSETS,
    onDecoderCall: (c) => calls.push(c),
    ...opts,
  });
  return { engine, calls, dir };
}

/** Thirteen one-token words: repeated, a period longer than the loop check's unit (`MAX_LOOP_UNIT`). */
const PHRASE = [" the", " a", " of", " and", " to", " in", " is", " it", " that", " was", " he", " for", " on"].map(one);
const HELLO_PLAN = [ts(0), ...tk.encode(" Hello world"), ts(1), ts(1), ...tk.encode(" How are you?"), ts(2.4)];

describe("Whisper engine on a scripted fixture", () => {
  test("greedy decoding yields the scripted text, segments and word timings in proportion to their spoken length", async () => {
    const { engine, calls } = await engineFor(forced(HELLO_PLAN), { decoding: { beamSize: 1 } });
    const r = await engine.transcribe({ audio: jfk, partial: false, languages: ["en"] });
    expect(r.text).toBe("Hello world How are you?");
    expect(r.noSpeech).toBe(false);
    expect(r.language).toBe("en");
    expect(r.segments.map((s) => [s.start, s.end, s.text])).toEqual([
      [0, 1, "Hello world"],
      [1, 2.4, "How are you?"],
    ]);
    expect(r.words.map((w) => [w.word, w.start, w.end])).toEqual([
      ["Hello", 0, 0.5],
      ["world", 0.5, 1],
      ["How", 1, 1.467],
      ["are", 1.467, 1.933],
      ["you?", 1.933, 2.4],
    ]);
    for (const w of r.words) expect(w.confidence).toBeGreaterThan(0.99);
    expect(r.confidence).toBeGreaterThan(0.99);
    // The KV-cache loop: the prompt first without cache, then one token per call with a growing past.
    expect(calls[0]).toEqual({ inputIds: [tk.sot, lang("en"), tk.transcribe], pastLength: 0, useCacheBranch: false });
    expect(calls.length).toBe(HELLO_PLAN.length + 1);
    calls.slice(1).forEach((c, i) => {
      expect(c.useCacheBranch).toBe(true);
      expect(c.pastLength).toBe(3 + i);
      expect(c.inputIds).toEqual([HELLO_PLAN[i]]);
    });
    await engine.dispose();
  });

  test("language detection picks the language the fixture favours, within the candidates", async () => {
    const first = { [lang("fr")]: 6, [lang("en")]: 3, [lang("de")]: 2 };
    const { engine, calls } = await engineFor(forced(HELLO_PLAN, first), { decoding: { beamSize: 1 } });
    const probs = await engine.detectLanguage!(jfk);
    expect(probs[0].language).toBe("fr");
    expect(probs[0].probability).toBeGreaterThan(0.9);
    expect(probs.reduce((s, p) => s + p.probability, 0)).toBeCloseTo(1, 4);
    const restricted = await engine.detectLanguage!(jfk, ["en", "de"]);
    expect(restricted.map((p) => p.language)).toEqual(["en", "de"]);
    expect(restricted[0].probability).toBeCloseTo(Math.exp(3) / (Math.exp(3) + Math.exp(2)), 4);
    calls.length = 0;
    const r = await engine.transcribe({ audio: jfk, partial: false });
    expect(r.language).toBe("fr");
    expect(calls[0].inputIds).toEqual([tk.sot]); // detection pass
    expect(calls[1].inputIds).toEqual([tk.sot, lang("fr"), tk.transcribe]);
    // The decode starts from the detection's cross-attention caches: one first-branch call per window.
    expect(calls[1]).toMatchObject({ useCacheBranch: true, pastLength: 0 });
    expect(calls.filter((c) => !c.useCacheBranch)).toHaveLength(1);
    expect(r.text).toBe("Hello world How are you?");
    await engine.dispose();
  });

  test("beam search finds the likelier sequence that greedy misses; partials stay greedy", async () => {
    const [yes, no, thanks] = [one(" yes"), one(" no"), one(" thanks")];
    const flat = [" one", " two", " three", " four"].map(one);
    const positions: LogitRow[] = [
      { [lang("en")]: 5 }, {}, { [ts(0)]: 10 },
      { [yes]: 1, [no]: 0.6 }, {}, { [ts(1)]: 10 }, { [tk.eot]: 10 },
    ];
    const afterToken = { [yes]: Object.fromEntries(flat.map((t) => [t, 12])), [no]: { [thanks]: 22 } };
    const { engine } = await engineFor({ positions, afterToken }, { decoding: { beamSize: 1, temperatures: [0] } });
    const greedy = await engine.transcribe({ audio: jfk, partial: false, languages: ["en"] });
    expect(greedy.text).toBe("yes one");
    const beamReq: WhisperTranscribeRequest = { audio: jfk, partial: false, languages: ["en"], decoding: { beamSize: 3 } };
    const beam = await engine.transcribe(beamReq);
    expect(beam.text).toBe("no thanks");
    expect(beam.stats[0].avgLogprob).toBeGreaterThan(greedy.stats[0].avgLogprob);
    const partial = await engine.transcribe({ ...beamReq, partial: true });
    expect(partial.text).toBe("yes one");
    await engine.dispose();
  });

  test("no-speech guard: high <|nospeech|> with low-confidence text is silence, with confident text is kept", async () => {
    const first = { [lang("en")]: 2, [tk.noSpeech]: 9 };
    const confident = await engineFor(forced(HELLO_PLAN, first));
    const kept = await confident.engine.transcribe({ audio: jfk, partial: false, languages: ["en"] });
    expect(kept.stats[0].noSpeechProb).toBeGreaterThan(0.6);
    expect(kept.noSpeech).toBe(false);
    expect(kept.text).toBe("Hello world How are you?");

    const vague = ["one", "two", "three", "four", "five"].map((w) => one(` ${w}`));
    const positions: LogitRow[] = [first, {}, { [ts(0)]: 10 }];
    for (let i = 0; i < 12; i++) positions.push(Object.fromEntries(vague.map((t) => [t, 3])));
    positions.push({ [ts(2)]: 10 }, { [tk.eot]: 10 });
    const unsure = await engineFor({ positions });
    const silent = await unsure.engine.transcribe({ audio: jfk, partial: false, languages: ["en"] });
    expect(silent.stats[0].avgLogprob).toBeLessThan(-1);
    expect(silent.noSpeech).toBe(true);
    expect(silent.text).toBe("");
    expect(silent.words).toEqual([]);
    expect(silent.stats.length).toBe(1);
    await confident.engine.dispose();
    await unsure.engine.dispose();
  });

  test("compression-ratio guard rejects a repetitive transcript after the temperature fallback", async () => {
    // A phrase of 13 tokens, longer than the loop check's unit, five times over.
    const plan = [ts(0), ...Array.from({ length: 5 }, () => PHRASE).flat(), ts(5)];
    const { engine, calls } = await engineFor(forced(plan), { decoding: { beamSize: 1, temperatures: [0, 0.5, 1] } });
    const r = await engine.transcribe({ audio: jfk, partial: false, languages: ["en"] });
    expect(r.stats[0].compressionRatio).toBeGreaterThan(2.4);
    expect(r.stats[0].temperature).toBe(1); // every temperature was tried
    // The attempts share the window's first call (the prompt, no cache): one for the three, and
    // each attempt's first step continues from its 3 cached positions.
    expect(calls.filter((c) => !c.useCacheBranch)).toEqual([{ inputIds: [tk.sot, lang("en"), tk.transcribe], pastLength: 0, useCacheBranch: false }]);
    expect(calls.filter((c) => c.useCacheBranch && c.pastLength === 3).length).toBe(3);
    expect(r.noSpeech).toBe(true);
    expect(r.text).toBe("");
    // A caller with a reading of its own (`noFallback`): one attempt, no retry without the prompt.
    calls.length = 0;
    const once = await engine.transcribe({ audio: jfk, partial: false, languages: ["en"], previousText: "Earlier words.", noFallback: true });
    expect(once.stats).toHaveLength(1);
    expect(once.stats[0].temperature).toBe(0);
    expect(calls.filter((c) => !c.useCacheBranch)).toHaveLength(1);
    expect(once.text).toBe("");
    await engine.dispose();
  });

  test("a final whose language is uncertain weighs its two likeliest on temperature-0 decodes; only the winner falls back", async () => {
    // Detected as French, then English, then German, the likeliest under one half (uncertain:
    // decoded in both French and English); the text is repetitive in either, so every
    // temperature fails.
    const plan = [ts(0), ...Array.from({ length: 5 }, () => PHRASE).flat(), ts(5)];
    const first = { [lang("fr")]: 5, [lang("en")]: 4.9, [lang("de")]: 4.5 };
    const { engine, calls } = await engineFor(forced(plan, first), { decoding: { beamSize: 1 } });
    const r = await engine.transcribe({ audio: jfk, partial: false });
    // Each language once at temperature 0, then the winner at the five temperatures above 0 (not
    // both at six; its temperature-0 decode is not run again).
    expect(calls.filter((c) => c.useCacheBranch && c.pastLength === 3).length).toBe(2 + 5);
    expect(r.stats[0]).toMatchObject({ temperature: 1, passed: false });
    expect(r.noSpeech).toBe(true);
    expect(r.languageProbabilities!.map((p) => p.language).slice(0, 3).sort()).toEqual(["de", "en", "fr"]);
    // A decode that passes its checks at temperature 0 is kept as it is: one attempt per language.
    const clear = await engineFor(forced(HELLO_PLAN, first), { decoding: { beamSize: 1 } });
    const ok = await clear.engine.transcribe({ audio: jfk, partial: false });
    expect(ok.text).toBe("Hello world How are you?");
    expect(ok.stats[0]).toMatchObject({ temperature: 0, passed: true });
    expect(clear.calls.filter((c) => c.useCacheBranch && c.pastLength === 3).length).toBe(2);
    await engine.dispose();
    await clear.engine.dispose();
  });

  test("above temperature 0, five texts are sampled side by side and the likeliest kept (faster-whisper's best_of)", async () => {
    // Six words the beam prefers, each followed by noise (every token as likely: the decode fails
    // its log-probability check), and a seventh, " yes", that the beam never proposes (its six
    // best tokens per hypothesis are the others) but that ends cleanly when sampled.
    const yes = one(" yes");
    const worse = [" one", " two", " three", " four", " five", " six"].map(one);
    const positions: LogitRow[] = [{ [lang("en")]: 5 }, {}, { [ts(0)]: 10 }, { ...Object.fromEntries(worse.map((t) => [t, 1])), [yes]: 0.9 }, {}];
    const script = { positions, afterToken: { [yes]: { [ts(0.5)]: 30 }, [ts(0.5)]: { [tk.eot]: 30 } } };
    const second = jfk.slice(0, 16000);
    // With this seed five samples find it at temperature 0.4; one sample per temperature at 0.6.
    // A second of audio: the log-probability fallback asked for at any length.
    const { engine, calls } = await engineFor(script, { decoding: { seed: 3, lowLogprobFallbackMinS: 0 } });
    const r = await engine.transcribe({ audio: second, partial: false, languages: ["en"] });
    expect(r.text).toBe("yes");
    expect(r.stats[0]).toMatchObject({ temperature: 0.4, passed: true });
    // Each attempt's first step: the beam's five hypotheses at 0, then five samples at 0.2 and 0.4.
    const rows = (c: DecoderCallTrace[]) => c.filter((x) => x.useCacheBranch && x.pastLength === 3).map((x) => x.inputIds.length);
    expect(rows(calls)).toEqual([5, 5, 5]);
    const single = await engineFor(script, { decoding: { seed: 3, bestOf: 1, lowLogprobFallbackMinS: 0 } });
    const once = await single.engine.transcribe({ audio: second, partial: false, languages: ["en"] });
    expect(rows(single.calls)).toEqual([5, 1, 1, 1]);
    expect(once.stats[0]).toMatchObject({ temperature: 0.6, passed: true });
    await engine.dispose();
    await single.engine.dispose();
  });

  test("a decode with more words than its audio can hold falls back; kept when every temperature is as dense", async () => {
    // Twelve digits, each said as a word, in one second of audio (six a second at most, and two more).
    const digits = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8].flatMap((d, i) => (i === 0 ? [one(` ${d}`)] : [one(","), one(` ${d}`)]));
    const { engine, calls } = await engineFor(forced([ts(0), ...digits, ts(1)]), { decoding: { beamSize: 1, temperatures: [0, 0.5, 1] } });
    const r = await engine.transcribe({ audio: jfk.slice(0, 16000), partial: false, languages: ["en"] });
    expect(r.stats[0]).toMatchObject({ temperature: 1, passed: false });
    // Each attempt stops once it holds too many words (checked every four tokens): at its tenth
    // digit, the 20th token. The text is kept as far as that: not a word of a turn is dropped.
    expect(calls.filter((c) => c.useCacheBranch).length).toBe(3 * 19);
    expect(r.text).toBe("3, 1, 4, 1, 5, 9, 2, 6, 5, 3");
    // The same digits in three seconds pass at temperature 0.
    const slow = await engineFor(forced([ts(0), ...digits, ts(3)]), { decoding: { beamSize: 1, temperatures: [0, 0.5, 1] } });
    const ok = await slow.engine.transcribe({ audio: jfk.slice(0, 48000), partial: false, languages: ["en"] });
    expect(ok.stats[0]).toMatchObject({ temperature: 0, passed: true });
    await engine.dispose();
    await slow.engine.dispose();
  });

  test("a decode running on past its audio stops at the per-second token budget and yields nothing", async () => {
    const [b, dot] = [one(" B"), one(".")];
    // 110 tokens in a period of 13: longer than the loop check's unit, so only the budget stops it
    // (punctuation: no words, which the density check would stop first).
    const MARKS = [".", ",", "!", "?", ";", ":", "-", "(", ")", "[", "]", "'", "\""].map(one);
    const loop = [ts(0), ...Array.from({ length: 110 }, (_, i) => MARKS[i % MARKS.length]!)];
    const { engine, calls } = await engineFor(forced(loop), { decoding: { beamSize: 1, temperatures: [0] } });
    const half = jfk.subarray(16000, 24000); // 0.5 s: a budget of ceil(0.5 × 20) + 16 = 26 tokens
    const r = await engine.transcribe({ audio: half, partial: true, languages: ["en"] });
    expect(calls.length).toBe(26); // the prompt, then 25 more tokens (the 26th is sampled without a further call)
    expect(r.text).toBe("");
    expect(r.noSpeech).toBe(true);
    // The same loop on 11 s of audio is under the budget (236 > Whisper's own 224): Whisper's limit and guards apply.
    calls.length = 0;
    await engine.transcribe({ audio: jfk, partial: true, languages: ["en"] });
    expect(calls.length).toBe(loop.length + 1); // every token of the loop, then the end of text
    // A short utterance that ends well within the budget is kept.
    const short = await engineFor(forced([ts(0), b, dot, ts(0.4)]), { decoding: { beamSize: 1, temperatures: [0] } });
    expect((await short.engine.transcribe({ audio: half, partial: true, languages: ["en"] })).text).toBe("B.");
    await engine.dispose();
    await short.engine.dispose();
  });

  test("a repetition loop is stopped as soon as it repeats, what came before it and its unit once kept, and the window resumed after it", async () => {
    const [b, dot] = [one(" B"), one(".")];
    const card = tk.encode(" My card number is 41");
    const loop = [ts(0), ...card, ...Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? one("-") : one("11")))];
    // A loop in the first segment: resumed where the text before it ends at the speaking rate (the
    // loop left no timestamp). The fixture's script does not follow the resumed window's prompt.
    const { engine, calls } = await engineFor(forced(loop), { decoding: { beamSize: 1, temperatures: [0, 0.5] } });
    const r = await engine.transcribe({ audio: jfk, partial: true, languages: ["en"] });
    expect(r.segments[0]).toMatchObject({ start: 0, text: "My card number is 41-11" });
    // "My"(3) "card"(5) "number"(7) "is"(3) "41-11"(17): 35 × 0.06 s.
    expect(r.segments[0]!.end).toBeCloseTo(2.1, 1);
    expect(r.stats.length).toBe(2);
    // The first window stopped at the sixth "-11", not at Whisper's limit of 224 tokens, and was not retried.
    expect(calls.findIndex((c, i) => i > 0 && !c.useCacheBranch)).toBe(1 + card.length + 12);
    // A final: the beam search stops the loop too.
    const beam = await engineFor(forced(loop), { decoding: { beamSize: 5, temperatures: [0, 0.5] } });
    const f = await beam.engine.transcribe({ audio: jfk, partial: false, languages: ["en"] });
    expect(f.segments[0]).toMatchObject({ start: 0, text: "My card number is 41-11" });
    expect(f.stats[0]!.temperature).toBe(0);
    // After whole segments: resumed after them when the loop's own text is too short to time.
    const resumed = [ts(0), ...tk.encode(" You can reach me."), ts(2), ts(2), ...Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? b : dot))];
    const again = await engineFor(forced(resumed), { decoding: { beamSize: 1, temperatures: [0, 0.5] } });
    const g = await again.engine.transcribe({ audio: jfk, partial: false, languages: ["en"] });
    expect(g.stats.length).toBe(2);
    expect(g.stats[0]!.temperature).toBe(0);
    expect(g.segments[0]).toMatchObject({ start: 0, end: 2, text: "You can reach me." });
    await engine.dispose();
    await beam.engine.dispose();
    await again.engine.dispose();
  });

  test("VAD gating, translation, vocabulary prompt, long audio and bad input", async () => {
    const { engine, calls } = await engineFor(forced(HELLO_PLAN), {
      decoding: { beamSize: 1 },
      vad: (audio) => audio.some((x) => Math.abs(x) > 0.01),
    });
    const gated = await engine.transcribe({ audio: jfk, partial: false, speech: false } as WhisperTranscribeRequest);
    expect(gated.noSpeech).toBe(true);
    expect(calls.length).toBe(0);
    const quiet = await engine.transcribe({ audio: new Float32Array(16000), partial: false });
    expect(quiet.noSpeech).toBe(true);
    expect(calls.length).toBe(0);

    const tr = await engine.transcribe({ audio: jfk, partial: false, languages: ["en"], task: "translate", targetLanguage: "en" });
    expect(calls[0].inputIds).toEqual([tk.sot, lang("en"), tk.translate]);
    expect(tr.text).toBe("Hello world How are you?");
    await expect(engine.transcribe({ audio: jfk, partial: false, task: "translate", targetLanguage: "de" })).rejects.toThrow(
      /English only/,
    );

    calls.length = 0;
    await engine.transcribe({ audio: jfk, partial: true, languages: ["en"], vocabulary: [{ phrase: "Gladia", intensity: 0.5 }] });
    expect(calls[0].inputIds).toEqual([tk.sotPrev, ...tk.encode(" Gladia."), tk.sot, lang("en"), tk.transcribe]);
    calls.length = 0;
    await engine.transcribe({
      audio: jfk, partial: true, languages: ["en"], vocabulary: [{ phrase: "Gladia", intensity: 0.5 }], previousText: "Hello there.",
    });
    expect(calls[0].inputIds).toEqual([tk.sotPrev, ...tk.encode(" Gladia."), ...tk.encode(" Hello there."), tk.sot, lang("en"), tk.transcribe]);

    const long = new Float32Array(16000 * 40);
    for (let i = 0; i < long.length; i++) long[i] = jfk[i % jfk.length];
    calls.length = 0;
    const lr = await engine.transcribe({ audio: long, partial: false, languages: ["en"] });
    const spans = lr.segments.map((s) => [s.start, s.end]);
    expect(spans.slice(0, 2)).toEqual([[0, 1], [1, 2.4]]);
    expect(spans.length).toBeGreaterThan(2);
    for (const [start] of spans.slice(2)) expect(start).toBeGreaterThanOrEqual(30);
    // The second window is prompted with the first window's text (condition_on_previous_text).
    const second = calls.find((c) => c.inputIds.includes(tk.sotPrev))!;
    expect(second.inputIds).toEqual([tk.sotPrev, ...tk.encode(" Hello world How are you?"), tk.sot, lang("en"), tk.transcribe]);

    const bad = new Float32Array(10);
    bad[3] = Number.NaN;
    await expect(engine.transcribe({ audio: bad, partial: false })).rejects.toThrow(/sample 3/);
    await expect(engine.transcribe({ audio: jfk, partial: false, languages: ["xx"] })).rejects.toThrow(/xx/);
    await engine.dispose();
  });

  test("custom vocabulary: entries by intensity, strongest first; intensity 0 and another language's entries left out", async () => {
    const { engine, calls } = await engineFor(forced(HELLO_PLAN));
    await engine.transcribe({
      audio: jfk, partial: true, languages: ["en"],
      vocabulary: [{ phrase: "alpha", intensity: 0.3 }, { phrase: "beta", intensity: 0.9 }, { phrase: "gamma", intensity: 1, language: "de" }, { phrase: "delta", intensity: 0 }],
    });
    expect(calls[0].inputIds).toEqual([tk.sotPrev, ...tk.encode(" beta, alpha."), tk.sot, lang("en"), tk.transcribe]);
    calls.length = 0;
    await engine.transcribe({ audio: jfk, partial: true, languages: ["en"], vocabulary: [{ phrase: "delta", intensity: 0 }] });
    expect(calls[0].inputIds).toEqual([tk.sot, lang("en"), tk.transcribe]);
    await engine.dispose();
  });

  test("custom vocabulary while decoding: a phrase's next token gets a bonus growing with its intensity", async () => {
    const hello = one(" Hello");
    const phrase = tk.encode(" Gladia");
    const prompt = [tk.sotPrev, ...tk.encode(" Gladia."), tk.sot, lang("en"), tk.transcribe];
    // After the prompt: a timestamp, then " Hello" (10) against the phrase's first token (8), then the end.
    const positions: LogitRow[] = [...prompt.slice(0, -1).map(() => ({})), { [ts(0)]: 10 }, { [hello]: 10, [phrase[0]!]: 8 }, { [ts(1)]: 10 }, { [tk.eot]: 10 }];
    const { engine } = await engineFor({ positions });
    const decode = async (intensity: number) =>
      (await engine.transcribe({ audio: jfk, partial: true, languages: ["en"], vocabulary: [{ phrase: "Gladia", intensity }] })).text;
    expect(await decode(0.2)).toBe("Hello"); // +0.6: not enough
    expect(await decode(1)).toBe(tk.decode([phrase[0]!]).trim()); // +3: the phrase begins
    await engine.dispose();
  });

  test("favour: the phrase's first token, or the next one of a phrase begun", () => {
    const at = (sampled: number[]) => {
      const row = new Float32Array(8);
      favour(row, sampled, [{ tokens: [3, 4, 5], bonus: 2 }]);
      return Array.from(row);
    };
    expect(at([])).toEqual([0, 0, 0, 2, 0, 0, 0, 0]);
    expect(at([1, 3])).toEqual([0, 0, 0, 0, 2, 0, 0, 0]);
    expect(at([3, 4])).toEqual([0, 0, 0, 0, 0, 2, 0, 0]);
    expect(at([3, 4, 5])).toEqual([0, 0, 0, 2, 0, 0, 0, 0]);
  });

  test("the registry entry point finds the assets next to the model directory", async () => {
    const { dir } = await engineFor(forced(HELLO_PLAN));
    await expect(loadEngine(dir, { name: "w" })).rejects.toThrow(/multilingual.tiktoken/);
    const engine = await loadEngine(dir, { name: "whisper-fixture", options: { assetsDir: ASSETS } });
    expect(engine.info).toMatchObject({ family: "whisper", name: "whisper-fixture", translationTargets: ["en"], sampleRate: 16000 });
    expect(engine.info.languages.length).toBe(99);
    await engine.dispose();
  });
});

describe("segments", () => {
  test("timestamps past the end of a short window's audio are clamped to it", () => {
    const tokens = [ts(0), ...tk.encode(" Ask not"), ts(2)];
    const [seg] = tokensToSegments(tk, tokens, tokens.map(() => -0.1), 3, 1.384, "en");
    expect([seg!.start, seg!.end]).toEqual([3, 4.384]);
    for (const w of seg!.words) expect(w.end).toBeLessThanOrEqual(4.384);
  });
});

describe("encoder windows", () => {
  test("a window is twice its audio in 5-s steps, between the shortest window and 30 s", () => {
    const s = (seconds: number) => Math.round(seconds * 16_000);
    const w = (audioS: number, shortest = 15) => encoderWindowSamples(s(audioS), shortest) / 16_000;
    expect([w(0), w(0.4), w(7.5), w(7.6), w(10), w(10.1), w(12.5), w(12.6), w(30)]).toEqual([15, 15, 15, 20, 20, 25, 25, 30, 30]);
    expect([w(2, 30), w(2, 0), w(2, 12), w(29.9, 0)]).toEqual([30, 5, 15, 30]);
  });
});
