import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readWavFile } from "../../dsp/wav.ts";
import { type ScoreRow, type TransducerFixtureOptions, writeTransducerFixture } from "../../fixtures/transducer-fixture.ts";
import { ContextGraph } from "./context-graph.ts";
import { TransducerEngine, type TransducerEngineOptions } from "./engine.ts";
import { Fbank } from "./fbank.ts";
import { loadEngine } from "./index.ts";
import { TokenTable } from "./tokens.ts";

const AUDIO = resolve(import.meta.dir, "../../../../shared/audio");
const speech = readWavFile(join(AUDIO, "jfk.wav")).samples.slice(0, 16000);
const root = mkdtempSync(join(tmpdir(), "transducer-fixture-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TOKENS = ["<blk>", "▁HELLO", "▁WORLD", "▁THE", "▁CAT", "▁KAT", "▁YES", "▁NO", "▁ONE", "▁TWO", "▁THREE", "▁THANKS", "S"];
const T = Object.fromEntries(TOKENS.map((t, i) => [t.replace("▁", ""), i]));
const BLANK: ScoreRow = { 0: 3 };
const tok = (id: number): ScoreRow => ({ [id]: 1 });

/** HELLO WORLD S THE at frames 1, 3, 4, 6, then a near tie CAT (0.30) / KAT (0.28) at frame 8. */
const MAIN_SCRIPT: ScoreRow[] = [
  BLANK, tok(T.HELLO), BLANK, tok(T.WORLD), tok(T.S), BLANK, tok(T.THE), BLANK,
  { [T.CAT]: 0.3, [T.KAT]: 0.28 }, BLANK,
];

let n = 0;
async function engineFor(fixture: Partial<TransducerFixtureOptions>, opts: Partial<TransducerEngineOptions> = {}) {
  const dir = join(root, `m${n++}`);
  writeTransducerFixture(dir, { tokens: TOKENS, script: MAIN_SCRIPT, ...fixture });
  return TransducerEngine.load({ modelDir: dir, ...opts });
}

describe("fbank", () => {
  const fb = new Fbank();
  test("frame count, incremental computation and a tone's peak band", () => {
    expect(fb.frameCount(399)).toBe(0);
    expect(fb.frameCount(400)).toBe(1);
    expect(fb.frameCount(16000)).toBe(98);
    const all = fb.compute(speech);
    const part = fb.compute(speech, 40, 60);
    expect(Array.from(part)).toEqual(Array.from(all.subarray(40 * 80, 60 * 80)));
    const tone = Float32Array.from({ length: 4000 }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 1000 * i) / 16000));
    const row = fb.compute(tone, 5, 6);
    const peak = row.indexOf(Math.max(...row));
    // Band centres are evenly spaced on 1127·ln(1 + f/700) between 20 and 7600 Hz.
    const mel = (f: number) => 1127 * Math.log(1 + f / 700);
    const expected = (mel(1000) - mel(20)) / ((mel(7600) - mel(20)) / 81) - 1;
    expect(Math.abs(peak - expected)).toBeLessThanOrEqual(1);
    const silence = fb.compute(new Float32Array(800));
    expect(silence[0]).toBeCloseTo(Math.log(1.1920928955078125e-7), 4);
    expect(() => fb.compute(speech, 0, 1000)).toThrow(/out of range/);
  });
});

describe("tokens and context graph", () => {
  const table = new TokenTable(TOKENS.map((t, i) => `${t} ${i}`).join("\n"));
  test("detokenize and phrase encoding", () => {
    expect(table.detokenize([T.HELLO, T.WORLD, T.S])).toBe("HELLO WORLDS");
    expect(table.encodePhrase("hello worlds")).toEqual([T.HELLO, T.WORLD, T.S]);
    expect(table.encodePhrase("zebra")).toBeNull();
    expect(() => new TokenTable("bad-line")).toThrow(/line 1/);
  });
  test("bonus kept for a completed phrase, given back for a broken one", () => {
    const g = new ContextGraph([{ tokens: [1, 2, 3], tokenScore: 1 }, { tokens: [5], tokenScore: 2 }]);
    let s = g.start;
    let total = 0;
    for (const t of [1, 2]) {
      const f = g.forward(s, t);
      total += f.score;
      s = f.state;
    }
    expect(total).toBe(2);
    const broken = g.forward(s, 4);
    expect(total + broken.score).toBe(0);
    const done = g.forward(s, 3);
    expect(total + done.score).toBe(3);
    expect(g.finalize(done.state)).toBe(0);
    expect(g.finalize(s)).toBe(-2);
    expect(g.forward(g.start, 5).score).toBe(2);
  });
});

describe("streaming transducer engine on a scripted fixture", () => {
  test("greedy decoding over several chunks yields the scripted tokens and word timings", async () => {
    const engine = await engineFor({});
    const r = await engine.transcribe({ audio: speech, partial: false });
    expect(r.tokens).toEqual([T.HELLO, T.WORLD, T.S, T.THE, T.CAT]);
    expect(r.text).toBe("HELLO WORLDS THE CAT");
    expect(r.noSpeech).toBe(false);
    // 16 feature frames per chunk → 8 encoder frames: 20 ms each.
    expect(r.words.map((w) => [w.word, w.start, w.end])).toEqual([
      ["HELLO", 0.02, 0.04],
      ["WORLDS", 0.06, 0.1],
      ["THE", 0.12, 0.14],
      ["CAT", 0.16, 0.18],
    ]);
    expect(r.words[0].confidence).toBeGreaterThan(0.9);
    expect(engine.info).toMatchObject({ family: "transducer", streaming: true, sampleRate: 16000 });
    await engine.dispose();
  });

  test("partial calls with carried states give the same final result as one pass, and release the stream", async () => {
    const engine = await engineFor({});
    const onePass = await engine.transcribe({ audio: speech, partial: false });
    const cuts = [3700, 8200, 12300];
    const partials: string[] = [];
    for (const cut of cuts) {
      const p = await engine.transcribe({ audio: speech.slice(0, cut), partial: true, streamKey: "s1" });
      partials.push(p.text);
      expect(engine.openStreams).toBe(1);
    }
    // 3700 samples = 22 feature frames: not yet a full chunk of 23.
    expect(partials[0]).toBe("");
    expect(partials[1]).toBe("HELLO WORLDS THE CAT");
    const final = await engine.transcribe({ audio: speech, partial: false, streamKey: "s1" });
    expect(engine.openStreams).toBe(0);
    expect(final.tokens).toEqual(onePass.tokens);
    expect(final.words).toEqual(onePass.words);
    expect(final.score).toBeCloseTo(onePass.score, 5);
    // A second utterance on a fresh key starts from the beginning of the script again.
    const again = await engine.transcribe({ audio: speech.slice(0, 8000), partial: true, streamKey: "s2" });
    expect(again.text.startsWith("HELLO")).toBe(true);
    await engine.dispose();
  });

  test("modified beam search finds the likelier path greedy misses", async () => {
    const fixture = {
      script: [BLANK, { [T.YES]: 0.12, [T.NO]: 0.1 }, {}, BLANK],
      decoderBias: {
        [T.YES]: { 0: 0.31, [T.ONE]: 0.3, [T.TWO]: 0.3, [T.THREE]: 0.3 },
        [T.NO]: { [T.THANKS]: 0.8 },
      },
    };
    const greedy = await engineFor(fixture);
    const beam = await engineFor(fixture, { decoding: "modified_beam_search", beamSize: 4 });
    const g = await greedy.transcribe({ audio: speech, partial: false });
    const b = await beam.transcribe({ audio: speech, partial: false });
    expect(g.text).toBe("YES");
    expect(b.text).toBe("NO THANKS");
    await greedy.dispose();
    await beam.dispose();
  });

  test("hotword biasing flips a near tie toward the vocabulary phrase", async () => {
    const engine = await engineFor({}, { decoding: "modified_beam_search" });
    const plain = await engine.transcribe({ audio: speech, partial: false });
    expect(plain.text).toBe("HELLO WORLDS THE CAT");
    const biased = await engine.transcribe({ audio: speech, partial: false, vocabulary: [{ phrase: "kat", intensity: 0.5 }] });
    expect(biased.text).toBe("HELLO WORLDS THE KAT");
    const weak = await engine.transcribe({ audio: speech, partial: false, vocabulary: [{ phrase: "kat", intensity: 0.02 }] });
    expect(weak.text).toBe("HELLO WORLDS THE CAT");
    await engine.dispose();
  });

  test("registry entry point, silence and bad input", async () => {
    const dir = join(root, "registry");
    writeTransducerFixture(dir, { tokens: TOKENS, script: [BLANK] });
    const engine = await loadEngine(dir, { name: "zipformer-fixture" });
    expect(engine.info.name).toBe("zipformer-fixture");
    const r = await engine.transcribe({ audio: speech, partial: false });
    expect(r).toMatchObject({ text: "", noSpeech: true, words: [] });
    const bad = new Float32Array(100);
    bad[7] = Number.POSITIVE_INFINITY;
    await expect(engine.transcribe({ audio: bad, partial: false })).rejects.toThrow(/sample 7/);
    await expect(engine.transcribe({ audio: speech, partial: false, task: "translate" })).rejects.toThrow(/translate/);
    await expect(loadEngine(join(root, "missing"), { name: "x" })).rejects.toThrow();
    await engine.dispose();
  });
});
