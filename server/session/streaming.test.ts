import { describe, expect, test } from "bun:test";
import type { TranscribeResult, WordTiming } from "../../workers/contract/types.ts";
import { STREAMING_PROFILES, type StreamingProfile } from "./profiles.ts";
import type { StreamDecodeRequest, StreamView } from "./stream-types.ts";
import { UtteranceStream } from "./streaming.ts";
import { afterCommitted, afterReread, agreedPrefixes, alignToCommitted, copiesFrom, loopFreeLength, normalizeWord, readingOf, repeatedPairs } from "./overlap.ts";

const RATE = 16000;

const w = (word: string, start = 0, end = 0): WordTiming => ({ word, start, end, confidence: 1 });
const words = (text: string) => text.split(" ").map((x, i) => w(x, i, i + 1));
const texts = (ws: WordTiming[]) => ws.map((x) => x.word).join(" ");

/** Every view's committed words start with the previous view's committed words, unchanged. */
function expectNoRetraction(views: StreamView[]): void {
  for (let i = 1; i < views.length; i++) {
    const before = texts(views[i - 1]!.committed);
    const now = texts(views[i]!.committed);
    expect(now.startsWith(before)).toBe(true);
    expect(views[i]!.text.startsWith(now)).toBe(true);
  }
}

/**
 * Partials of silence every interval until the first revision of committed words starts, then a
 * pause (with `before` and `after` it), partials up to 20 s, a pause there, and the final.
 */
async function pauseDuringRevision(stream: UtteranceStream, revisions: StreamDecodeRequest[], at: { before?: () => void; after?: () => void }): Promise<StreamView> {
  const profile = STREAMING_PROFILES.balanced;
  const audio = new Float32Array(21 * RATE);
  const upTo = (s: number) => audio.subarray(0, Math.round(s * RATE));
  let t = 0.5;
  for (; revisions.length === 0 && t < 21; t += profile.partialIntervalMs / 1000) {
    stream.partial(upTo(t));
    await stream.idle();
  }
  at.before?.();
  stream.partial(upTo(t), true);
  await stream.idle();
  at.after?.();
  for (; t <= 20; t += profile.partialIntervalMs / 1000) {
    stream.partial(upTo(t));
    await stream.idle();
  }
  stream.partial(upTo(20.014), true);
  await stream.idle();
  return stream.finish(upTo(20.014));
}

describe("agreement helpers", () => {
  test("normalizeWord ignores case and punctuation", () => {
    expect(normalizeWord("Americans,")).toBe("americans");
    expect(normalizeWord("Don't")).toBe("dont");
    expect(normalizeWord("...")).toBe("");
    expect(normalizeWord("Four.")).toBe(normalizeWord("4"));
  });

  test("repeatedPairs counts word pairs said before, not pairs of numbers", () => {
    expect(repeatedPairs(words("To reach your route your route, to reach your route, to reach your route,"))).toBe(8);
    expect(repeatedPairs(words("To reset your router, first unplug the power cable and wait"))).toBe(0);
    expect(repeatedPairs(words("call five five five, five five five one"))).toBe(0);
  });

  test("readingOf takes a re-reading's words between two cuts, its edges matched to the committed words by text", () => {
    const timed = (text: string, starts: number[]) => text.split(" ").map((x, i) => w(x, starts[i]!, starts[i]! + 0.3));
    const between = (from: number, to: number) => (x: WordTiming) => (x.start + x.end) / 2 >= from && (x.start + x.end) / 2 < to;
    // "While" placed early by the decode: its middle falls before the cut at 1.0 s.
    const reading = timed("pier. While a few gulls", [0.2, 0.6, 1.1, 1.4, 1.7]);
    expect(texts(readingOf(reading, between(1.0, 3), words("While a few gulls")))).toBe("While a few gulls");
    // The word before the cut placed late: not taken in.
    const late = timed("pier. While a few", [0.9, 1.2, 1.5, 1.8]);
    expect(texts(readingOf(late, between(1.0, 3), words("While a few")))).toBe("While a few");
    // The last word placed late, past the next cut at 1.6 s; and edges that already match.
    expect(texts(readingOf(timed("a few gulls circled", [0.5, 0.9, 1.5, 1.8]), between(0.4, 1.6), words("a few gulls")))).toBe("a few gulls");
    expect(texts(readingOf(reading, between(1.0, 1.8), words("a few")))).toBe("a few");
    // A reading that differs at the edges is taken by time alone.
    expect(texts(readingOf(reading, between(1.0, 3), words("Well a few girls")))).toBe("a few gulls");
  });

  test("agreedPrefixes: where every hypothesis agrees with the newest, past a short stretch read differently", () => {
    const ends = (h: string[]) => agreedPrefixes(h.map(words)).map((at) => at.join(","));
    expect(ends(["and so my fella", "And so, my fellow Americans"])).toEqual(["1,1", "2,2", "3,3"]);
    expect(ends(["a b c", "a b c d", "a x"])).toEqual(["1,1,1"]);
    expect(ends(["a b", ""])).toEqual([]);
    expect(ends([])).toEqual([]);
    expect(ends(["a b c"])).toEqual(["1", "2", "3"]);
    // One word read two ways, then four alike: the agreement goes on, the newest's reading kept.
    expect(ends(["first unplug the power cable and wait", "first and run the power cable and went"])).toEqual(["1,1", "3,4", "4,5", "5,6", "6,7"]);
    // Fewer than four alike after it: it stops at the disputed word.
    expect(ends(["unplug the power cable", "and run the power"])).toEqual([]);
    // More than two words disputed: it stops there too.
    expect(ends(["a b c d e f g h", "a x y z e f g h"])).toEqual(["1,1"]);
  });

  test("copiesFrom finds five words in a row of the source, with letters enough", () => {
    const source = words("then plug it back in and when the power light turns on you can open the settings");
    expect(copiesFrom(words("and you can open the settings, and when"), source)).toBe(true);
    expect(copiesFrom(words("page in your browser, sign in with the password"), source)).toBe(false);
    expect(copiesFrom(words("you can open the door"), source)).toBe(false);
    // Five short words in a row are not enough text to tell a copy from a number said again.
    expect(copiesFrom(words("4 1 5 5 5"), words("call 4 1 5 5 5 now"))).toBe(false);
  });

  test("loopFreeLength stops before the occurrence of a unit that makes it a loop", () => {
    const free = (before: string, added: string) => loopFreeLength(before === "" ? [] : words(before), words(added));
    // A phrase a third time: the two before it may be committed, not the third.
    expect(free("", "The hero is one. The hero is one. The hero is one. The")).toBe(8);
    expect(free("The hero is one. The hero is one.", "The hero is one.")).toBe(0);
    expect(free("The hero is one.", "The hero is one. And then")).toBe(6);
    // A third occurrence cut off by the end of the decode may go on: held too. Broken off, it was speech.
    expect(free("The hero is one. The hero is one.", "The hero")).toBe(0);
    expect(free("", "Thank you. Thank you. Thank God it works.")).toBe(8);
    // With nothing to follow (a final's tail), a repetition cut off at the end is not held.
    expect(loopFreeLength(words("The hero is one. The hero is one."), words("The hero"), false)).toBe(2);
    // A word four times, digits five times.
    expect(free("", "no, no, no, thanks")).toBe(4);
    expect(free("the", "the the the the")).toBe(2);
    expect(free("call 4 1 5,", "5 5 0 0 0 0 1")).toBe(7);
    expect(free("", "41, 41, 41, 41, 41, 41")).toBe(4);
    // Digits in pairs three times are still dictation; a unit longer than six words is not looked for.
    expect(free("", "1 2 1 2 1 2")).toBe(6);
    expect(free("", "a b c d e f g a b c d e f g a b c d e f g")).toBe(21);
  });

  test("alignToCommitted skips the committed words a new decode repeats", () => {
    const committed = words("and so my");
    expect(alignToCommitted(words("And so, my fellow"), committed)).toBe(3);
    // The decode re-spells an early committed word: aligned on the last committed words.
    expect(alignToCommitted(words("an so my fellow"), committed)).toBe(3);
    // It re-spells one of the last ones: still aligned after "not", nothing of the new text skipped.
    expect(alignToCommitted(words("And so my fellow Americans, ask not what you are"), words("And so my fellow Americans. asked not"))).toBe(7);
    // It drops a committed word.
    expect(alignToCommitted(words("and so fellow Americans ask"), words("and so my fellow Americans"))).toBe(4);
    // Nothing to match on: by time (midpoints up to the last committed word's end, 3 s).
    expect(alignToCommitted([w("x", 0, 1), w("y", 1, 2.9), w("z", 3, 4)], committed)).toBe(2);
    expect(alignToCommitted(words("fellow"), [])).toBe(0);
  });

  test("afterCommitted finds the end of the committed text however the decode spells it", () => {
    const text = (ws: WordTiming[]) => ws.map((x) => x.word).join(" ");
    // The same words: the rest.
    expect(text(afterCommitted(words("and so my fellow"), words("And so, my")))).toBe("fellow");
    // Digits grouped otherwise: the committed digits end inside a word, whose rest is kept.
    expect(text(afterCommitted(words("You can reach me at 415-555-0132. My card"), words("You can reach me at 415, 5, 5, 5,")))).toBe("0132. My card");
    expect(text(afterCommitted(words("at 415, 5, 5, 5, 0132."), words("at 415-555")))).toBe("0132.");
    // A re-spelled and a dropped word: aligned after the last committed word.
    expect(text(afterCommitted(words("an so my fellow"), words("and so my")))).toBe("fellow");
    expect(text(afterCommitted(words("And so my fellow Americans, ask not what you are"), words("And so my fellow Americans. asked not")))).toBe("what you are");
    expect(text(afterCommitted(words("and so fellow Americans ask"), words("and so my fellow Americans")))).toBe("ask");
    expect(text(afterCommitted(words("My card number is 4532, 7189"), words("My current number is 4, 5, 3, 2.")))).toBe("7189");
    // A word of letters is never split: taken whole, or left whole, where the alignment ends inside it.
    expect(text(afterCommitted(words("on the sticker underneath the device"), words("on the sticker unde")))).toBe("underneath the device");
    expect(text(afterCommitted(words("on the sticker underneath the device"), words("on the sticker underneat")))).toBe("the device");
    // A decode that stopped short of the committed text (it skipped audio) adds nothing.
    expect(afterCommitted(words("You can reach me at 415-"), words("You can reach me at 415. I'm fine, fine, 5, 550032"))).toEqual([]);
    // Nothing alike: by time, as alignToCommitted.
    expect(text(afterCommitted([w("xylophone", 0, 1), w("yak", 1, 2.9), w("zebra", 3, 4)], words("and so my")))).toBe("zebra");
    // The rest of a split word is timed in proportion to its characters.
    const [rest] = afterCommitted([w("415-555-0132.", 2, 4)], [w("415555", 2, 3)]);
    expect(rest).toMatchObject({ word: "0132.", start: 3.2, end: 4 });
  });

  test("afterReread leaves out the words before a buffer cut where the decode repeats them, and only there", () => {
    const text = (ws: WordTiming[]) => ws.map((x) => x.word).join(" ");
    // Repeated (as committed, or spelled otherwise), then the committed words in the buffer.
    expect(text(afterReread(words("5, 0132. My card number"), words("5,"), words("0132.")))).toBe("My card number");
    expect(text(afterReread(words("country. And so"), words("country,"), []))).toBe("And so");
    expect(text(afterReread(words("555-0132. My"), words("5, 5, 5"), []))).toBe("0132. My");
    // Not repeated: nothing of the decode is lost.
    expect(text(afterReread(words("w8 w9 w10"), words("w7."), words("w8")))).toBe("w9 w10");
    expect(text(afterReread(words("0132. My card"), words("5,"), []))).toBe("0132. My card");
  });
});

/**
 * A recognizer over a timed script, for the policy's bookkeeping: a decode returns the script's
 * words that end inside the audio it is given (times relative to that audio), and misspells a last
 * word that ends less than 0.3 s before the audio does (in a partial), as a real recognizer
 * changes its mind about a word it hears cut off.
 */
function scriptedDecode(script: WordTiming[], log: StreamDecodeRequest[], greedy: (word: string, i: number) => string = (x) => x) {
  return async (req: StreamDecodeRequest): Promise<TranscribeResult> => {
    log.push(req);
    // A decode's audio is a view of the utterance's: where it starts there is where it starts in the script.
    const from = req.audio.byteOffset / Float32Array.BYTES_PER_ELEMENT / RATE;
    const to = from + req.audio.length / RATE;
    const inside = script.map((x, i) => ({ x, i })).filter(({ x }) => x.start >= from - 1e-6 && x.end <= to + 1e-6);
    const out = inside.map(({ x, i }, k) => {
      const cut = to - x.end < 0.3;
      const heard = req.partial ? greedy(x.word, i) : x.word;
      const word = k === inside.length - 1 && cut && req.partial ? `${heard}x` : heard;
      return { ...x, word, start: x.start - from, end: x.end - from };
    });
    return { text: texts(out), language: "en", confidence: 0.9, words: out, noSpeech: out.length === 0 };
  };
}

describe("UtteranceStream bookkeeping on a timed script", () => {
  // 40 words, 0.5 s each, a sentence end every 8 words: 20 s of "speech".
  const script = Array.from({ length: 40 }, (_, i) => w(`w${i}${i % 8 === 7 ? "." : ""}`, i * 0.5, i * 0.5 + 0.45));
  const profile: StreamingProfile = { ...STREAMING_PROFILES.balanced, maxBufferS: 5, hardBufferS: 8 };

  /**
   * `pause`: speech pauses at its end (the speculative final) instead of partials going on through
   * the endpointing window. `until`: seconds of audio the partials go on to (the final's audio ends
   * 0.986 s before), 21 s by default: 1 s after the speech.
   */
  async function run(p: StreamingProfile, greedy?: (word: string, i: number) => string, pause = false, until = 21) {
    const log: StreamDecodeRequest[] = [];
    const views: StreamView[] = [];
    let stream: UtteranceStream;
    const decode = scriptedDecode(script, log, greedy);
    stream = new UtteranceStream({ profile: p, decode, onPartial: (v) => views.push(v) });
    // Speech ends at 19.95 s; partials go on through 1 s of trailing silence (the endpointing
    // window) and the final's audio ends 64 ms after the speech, as the endpointer cuts it.
    const audio = new Float32Array(until * RATE);
    const end = Math.round((until - 0.986) * RATE);
    for (let t = 0.5; t <= (pause ? until - 1 : until); t += p.partialIntervalMs / 1000) {
      stream.partial(audio.subarray(0, Math.round(t * RATE)));
      await stream.idle();
    }
    if (pause) {
      stream.partial(audio.subarray(0, end), true);
      await stream.idle();
    }
    const final = await stream.finish(audio.subarray(0, end));
    return { log, views, final, stream };
  }

  test("commits what two decodes agree on, never retracts, and the final is committed + tail", async () => {
    const { views, final } = await run(profile);
    expect(views.length).toBeGreaterThan(30);
    expectNoRetraction([...views, final]);
    // A misspelled last word is never committed.
    for (const v of views) expect(v.committed.some((x) => x.word.endsWith("x"))).toBe(false);
    expect(texts(final.words)).toBe(texts(script));
    const last = views[views.length - 1]!;
    expect(final.text.startsWith(texts(last.committed))).toBe(true);
  });

  test("the decoded buffer stays bounded and committed text becomes the prompt", async () => {
    const { log, stream } = await run(profile);
    expect(stream.stats.cuts).toBeGreaterThan(0);
    // Cuts at sentence ends once past 5 s: a decode covers at most a sentence-aligned 5 s + one sentence + one interval.
    expect(stream.stats.maxDecodedSeconds).toBeLessThanOrEqual(profile.maxBufferS + 4 + profile.partialIntervalMs / 1000);
    const late = log[log.length - 1]!;
    expect(late.previousText.startsWith("w0 w1 w2")).toBe(true);
    expect(late.previousText).toContain("w7.");
  });

  test("the final reuses a covering decode only where the profile says so", async () => {
    const reuse = await run({ ...profile, reuseCoveringDecode: true });
    // The last decode of the utterance (revisions of committed words aside).
    const lastOf = (log: StreamDecodeRequest[]) => log.filter((r) => !r.background).at(-1)!;
    expect(lastOf(reuse.log).partial).toBe(true);
    const redo = await run({ ...profile, reuseCoveringDecode: false, finalBeamSize: 5 });
    const lastCall = lastOf(redo.log);
    expect(lastCall.partial).toBe(false);
    expect(lastCall.beamSize).toBe(5);
    expect(texts(redo.final.words)).toBe(texts(script));
  });

  test("the final does not wait for a partial decode that does not cover the utterance", async () => {
    let release!: () => void;
    const blocked = new Promise<void>((r) => (release = r));
    const calls: StreamDecodeRequest[] = [];
    const stream = new UtteranceStream({
      profile,
      decode: async (req) => {
        calls.push(req);
        if (req.partial) await blocked;
        return { text: "hello there", language: "en", confidence: 1, words: [w("hello", 0, 0.5), w("there", 0.6, 0.9)], noSpeech: false };
      },
    });
    stream.partial(new Float32Array(RATE / 2));
    const final = await stream.finish(new Float32Array(RATE));
    expect(final.text).toBe("hello there");
    expect(calls.map((c) => c.partial)).toEqual([true, false]);
    release();
    await stream.idle();
  });

  test("the final awaits a partial decode in flight that covers the utterance", async () => {
    let release!: () => void;
    const blocked = new Promise<void>((r) => (release = r));
    const calls: StreamDecodeRequest[] = [];
    const stream = new UtteranceStream({
      profile: { ...profile, reuseCoveringDecode: true },
      decode: async (req) => {
        calls.push(req);
        await blocked;
        return { text: "hello", language: "en", confidence: 1, words: [w("hello", 0, 0.5)], noSpeech: false };
      },
    });
    stream.partial(new Float32Array(RATE));
    const final = stream.finish(new Float32Array(RATE - 100));
    release();
    expect((await final).text).toBe("hello");
    expect(calls.map((c) => c.partial)).toEqual([true]);
  });

  test("a reused decode keeps words whose timings run past the final audio", async () => {
    // The decode saw 1.5 s (speech, then pause); the final audio is 1 s; the last segment's
    // interpolated timings spread its words up to 1.5 s.
    const stream = new UtteranceStream({
      profile: { ...profile, reuseCoveringDecode: true },
      decode: async () => ({ text: "welcome his gospel", language: "en", confidence: 1, words: [w("welcome", 0.1, 0.6), w("his", 0.6, 0.9), w("gospel.", 1.05, 1.5)], noSpeech: false }),
    });
    stream.partial(new Float32Array(RATE * 1.5));
    await stream.idle();
    const final = await stream.finish(new Float32Array(RATE));
    expect(final.text).toBe("welcome his gospel.");
    expect(final.words.at(-1)!.end).toBe(1);
  });

  test("the final takes committed words from final-settings decodes of their audio (reviseCommitted); partials keep them as committed", async () => {
    // Partial (greedy) decodes mishear every fifth word alike, so it is committed; final-settings decodes hear it.
    const greedy = (x: string, i: number) => (i % 5 === 3 ? `g${x}` : x);
    // Speech ends at 20 s and the pause at 26 s: every revision has the audio it waits for.
    const { views, final, log, stream } = await run(profile, greedy, true, 27);
    expect(stream.stats.finalReused).toBe(true);
    expect(stream.stats.cuts).toBeGreaterThan(1);
    expect(stream.stats.revised).toBe(stream.stats.cuts);
    expectNoRetraction(views);
    expect(texts(views[views.length - 1]!.committed)).toContain("gw3");
    expect(texts(final.words)).toBe(texts(script));
    // One revision per cut: the audio from the buffer start to the cut, final settings, prompted as its words were.
    const revisions = log.filter((r) => r.background);
    expect(revisions.length).toBe(stream.stats.cuts);
    for (const r of revisions) expect(r).toMatchObject({ partial: false, beamSize: profile.finalBeamSize });
    // Each hears up to 5 s past its cut (the next revision starts 0.3 s before that cut), and is
    // no longer than any decode may be (the hard buffer limit plus an interval).
    const longest = profile.hardBufferS + profile.partialIntervalMs / 1000;
    for (let k = 0; k + 1 < revisions.length; k++) {
      const start = revisions[k]!.audio.byteOffset / 4 / RATE;
      const end = start + revisions[k]!.audio.length / RATE;
      const cut = revisions[k + 1]!.audio.byteOffset / 4 / RATE + 0.3;
      expect(end - cut).toBeGreaterThan(1);
      expect(end).toBeCloseTo(Math.min(cut + 5, start + longest), 1);
    }
    // The prompt of a later decode is the revised text.
    expect(log[log.length - 1]!.previousText).toStartWith("w0 w1 w2 w3 w4");
    // Without revisions the final keeps what the partials committed.
    const kept = await run({ ...profile, reviseCommitted: false }, greedy, true, 27);
    expect(kept.stream.stats.revised).toBe(0);
    expect(texts(kept.final.words)).toContain("gw3");
    expectNoRetraction([...kept.views, kept.final]);
  });

  /** Partials of the script's audio every interval up to 21 s, no pause, then the final (its audio ends at 20.014 s). */
  async function partialsThenFinal(stream: UtteranceStream): Promise<StreamView> {
    const audio = new Float32Array(21 * RATE);
    for (let t = 0.5; t <= 21; t += profile.partialIntervalMs / 1000) {
      stream.partial(audio.subarray(0, Math.round(t * RATE)));
      await stream.idle();
    }
    return stream.finish(audio.subarray(0, Math.round(20.014 * RATE)));
  }

  test("a revision that reads much less or much more than the committed words, or goes round in circles, is not used", async () => {
    // "loops": as much text as the committed words, in a cycle of three words.
    const loop = (x: WordTiming, i: number) => ({ ...x, word: `${"lp".slice(0, x.word.length - 1)}${i % 3}` });
    for (const odd of ["less", "more", "loops"] as const) {
      const log: StreamDecodeRequest[] = [];
      const plain = scriptedDecode(script, log, (x, i) => (i % 5 === 3 ? `g${x}` : x));
      const decode = async (req: StreamDecodeRequest) => {
        const r = await plain(req);
        if (!req.background) return r;
        const words = odd === "less" ? r.words.slice(0, 2) : odd === "loops" ? r.words.map(loop) : [...r.words, ...r.words.map((x) => ({ ...x, word: "extra" }))];
        return { ...r, words, text: texts(words) };
      };
      const stream = new UtteranceStream({ profile, decode });
      const final = await partialsThenFinal(stream);
      expect(stream.stats.cuts).toBeGreaterThan(1);
      expect(stream.stats.revised).toBe(0);
      expect(texts(final.words)).toContain("gw3");
      expect(texts(final.words)).not.toContain("extra");
      expect(texts(final.words)).not.toMatch(/l\d|lp\d/);
    }
  });

  test("a revision still running when the final is asked for is aborted before the final's decode starts, not waited for", async () => {
    const log: StreamDecodeRequest[] = [];
    const plain = scriptedDecode(script, log, (x, i) => (i % 5 === 3 ? `g${x}` : x));
    const aborted: boolean[] = [];
    // Revisions never return. The final's decode notes how many were aborted when it started (an
    // engine running one decode at a time would run it only after them).
    let started = 0;
    const abortedAtFinal: number[] = [];
    const decode = (req: StreamDecodeRequest, signal?: AbortSignal) => {
      if (req.background && ++started) return new Promise<never>((_, reject) => signal?.addEventListener("abort", () => (aborted.push(true), reject(new Error("aborted")))));
      if (!req.partial && !req.speculative) abortedAtFinal.push(aborted.length);
      return plain(req);
    };
    // The final decodes the buffer itself (it does not reuse the last partial decode); partials wait
    // 20 ms for each revision, then go on without it.
    const stream = new UtteranceStream({ profile: { ...profile, reuseCoveringDecode: false, revisionWaitMs: 20 }, decode });
    const final = await partialsThenFinal(stream);
    expect(stream.stats.cuts).toBeGreaterThan(1);
    expect(aborted.length).toBeGreaterThan(0);
    expect(aborted.length).toBe(started);
    expect(abortedAtFinal).toEqual([started]);
    expect(stream.stats.revisionWaits).toBeGreaterThanOrEqual(started - 1);
    expect(stream.stats.revised).toBe(0);
    expect(texts(final.words)).toContain("gw3");
  });

  test("the next partial waits for a running revision of the committed words, so an engine the partials keep busy still runs it", async () => {
    const log: StreamDecodeRequest[] = [];
    const plain = scriptedDecode(script, log, (x, i) => (i % 5 === 3 ? `g${x}` : x));
    const events: string[] = [];
    const decode = async (req: StreamDecodeRequest) => {
      if (!req.background) {
        events.push(req.partial ? "partial" : "final");
        return plain(req);
      }
      events.push("revision");
      await Bun.sleep(30); // a beam search of seconds of audio
      events.push("revised");
      return plain(req);
    };
    const stream = new UtteranceStream({ profile, decode });
    const final = await partialsThenFinal(stream);
    const started = events.filter((e) => e === "revision").length;
    expect(started).toBeGreaterThan(1);
    // No partial decode between a revision's start and its return (the last one, started by the
    // last partial, is dropped by the final).
    expect(events.join(" ").replace(/ revision$/, "")).not.toMatch(/revision (?!revised)/);
    expect(stream.stats.revisionWaits).toBeGreaterThanOrEqual(started - 1);
    expect(stream.stats.revised).toBeGreaterThanOrEqual(started - 1);
    // The revised words replace the greedy partials' misreadings ("gw3", …).
    expect(texts(final.words.slice(0, 24))).toBe(texts(script.slice(0, 24)));
  });

  test("a pause stops a running revision; it starts again once the pause's speculative final has returned", async () => {
    const log: StreamDecodeRequest[] = [];
    const plain = scriptedDecode(script, log, (x, i) => (i % 5 === 3 ? `g${x}` : x));
    let hold = true;
    const stopped: number[] = [];
    const revisions: StreamDecodeRequest[] = [];
    // Revisions wait while `hold` is set (as a slow decode would), unless aborted.
    const decode = (req: StreamDecodeRequest, signal?: AbortSignal) => {
      if (req.background) revisions.push(req);
      return req.background && hold
        ? new Promise<TranscribeResult>((_, reject) => signal?.addEventListener("abort", () => (stopped.push(log.length), reject(new Error("aborted")))))
        : plain(req);
    };
    const stream = new UtteranceStream({ profile, decode });
    // A pause: the revision gives way.
    const final = await pauseDuringRevision(stream, revisions, {
      before: () => {
        expect(stream.stats.decodes).toBeGreaterThan(0);
        hold = false;
      },
      after: () => expect(stopped.length).toBe(1),
    });
    // The stopped revision was decoded again, and used.
    expect(revisions.filter((r) => r.audio.byteOffset === 0).length).toBe(2);
    expect(stream.stats.revised).toBeGreaterThan(0);
    expect(texts(final.words).split(" ").slice(0, 8).join(" ")).toBe(texts(script.slice(0, 8)));
  });

  test("where the engine suspends revisions for more urgent decodes, a pause leaves a running revision to it, and it is decoded once", async () => {
    const log: StreamDecodeRequest[] = [];
    const plain = scriptedDecode(script, log, (x, i) => (i % 5 === 3 ? `g${x}` : x));
    const stopped: number[] = [];
    const revisions: StreamDecodeRequest[] = [];
    let release = () => {};
    // The first revision waits for `release` (a slow decode the engine suspends meanwhile), unless aborted.
    const decode = (req: StreamDecodeRequest, signal?: AbortSignal) => {
      if (!req.background) return plain(req);
      revisions.push(req);
      if (revisions.length > 1) return plain(req);
      return new Promise<TranscribeResult>((resolve, reject) => {
        release = () => plain(req).then(resolve, reject);
        signal?.addEventListener("abort", () => (stopped.push(log.length), reject(new Error("aborted"))));
      });
    };
    const stream = new UtteranceStream({ profile, decode, revisionsYield: true });
    // A pause: its decode runs beside the revision.
    const final = await pauseDuringRevision(stream, revisions, {
      after: () => {
        expect(stopped).toEqual([]);
        release();
      },
    });
    expect(revisions.filter((r) => r.audio.byteOffset === 0).length).toBe(1);
    expect(stopped).toEqual([]);
    expect(stream.stats.revised).toBeGreaterThan(0);
    expect(texts(final.words).split(" ").slice(0, 8).join(" ")).toBe(texts(script.slice(0, 8)));
  });

  test("with a commit limit (a cut may fall there), no word past it is committed and no decode past it makes the final", async () => {
    // Every decode hears the same three words; the utterance may be cut at 1.0 s.
    const script = [w("first", 0.1, 0.5), w("second", 0.6, 0.9), w("third", 1.2, 1.6)];
    const calls: StreamDecodeRequest[] = [];
    const views: StreamView[] = [];
    const stream = new UtteranceStream({
      profile: { ...profile, reuseCoveringDecode: true, commitMarginS: 0, minCommitAudioS: 0 },
      decode: async (req) => {
        calls.push(req);
        const end = req.audio.length / RATE;
        const heard = script.filter((x) => x.end <= end);
        return { text: texts(heard), language: "en", confidence: 1, words: heard, noSpeech: false };
      },
      onPartial: (v) => views.push(v),
    });
    for (const s of [1.7, 1.8, 1.9]) {
      stream.partial(new Float32Array(Math.round(RATE * s)), false, 1.0);
      await stream.idle();
    }
    expect(texts(stream.committedWords)).toBe("first second");
    expect(views.at(-1)!.transcribed).toBe(0.9);
    // A speculative final (a later pause) counts as transcribed only up to the limit.
    stream.partial(new Float32Array(RATE * 2), true, 1.0);
    await stream.idle();
    expect(views.at(-1)!.speculative).toBe(true);
    expect(views.at(-1)!.transcribed).toBe(1.0);
    // Cut at 1.0 s: the decodes of 1.7–1.9 s are not the final's; a new decode of the piece is.
    const final = await stream.finish(new Float32Array(RATE));
    expect(final.text).toBe("first second");
    expect(calls.at(-1)!.partial).toBe(false);
    expect(calls.at(-1)!.audio.length).toBe(RATE);
  });

  test("a stream whose every decode fails reports the errors and still finishes", async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const stream = new UtteranceStream({
      profile,
      decode: async (req) => {
        calls++;
        if (req.partial) throw new Error("no capacity");
        return { text: "hello", language: "en", confidence: 1, words: [w("hello", 0, 0.5)], noSpeech: false };
      },
      onError: (e) => errors.push(e),
    });
    stream.partial(new Float32Array(RATE));
    await stream.idle();
    const final = await stream.finish(new Float32Array(RATE));
    expect(errors.length).toBe(1);
    expect(calls).toBe(2);
    expect(final.text).toBe("hello");
  });
});

describe("speculative final at a pause", () => {
  // 6 words of 0.4 s: 2.4 s of speech; the pause partial's audio ends 64 ms after it.
  const script = Array.from({ length: 6 }, (_, i) => w(`v${i}`, i * 0.4, i * 0.4 + 0.35));
  const pauseEnd = Math.round(2.414 * RATE);

  function setup(p: StreamingProfile) {
    const log: StreamDecodeRequest[] = [];
    const views: StreamView[] = [];
    let stream: UtteranceStream;
    const decode = scriptedDecode(script, log);
    stream = new UtteranceStream({ profile: p, decode, onPartial: (v) => views.push(v) });
    return { log, views, stream: stream! };
  }

  for (const name of ["low_latency", "balanced", "accurate"] as const) {
    test(`${name}: the pause's decode has the final settings and is the final, no decode after the window`, async () => {
      const p = STREAMING_PROFILES[name];
      const { log, views, stream } = setup(p);
      const audio = new Float32Array(3 * RATE);
      for (let t = 0.5; t < 2.4; t += 0.5) {
        stream.partial(audio.subarray(0, Math.round(t * RATE)));
        await stream.idle();
      }
      stream.partial(audio.subarray(0, pauseEnd), true);
      await stream.idle();
      const spec = log[log.length - 1]!;
      expect(spec.partial).toBe(false);
      expect(spec.speculative).toBe(true);
      expect(spec.beamSize).toBe(p.finalBeamSize);
      // It also refreshed the partial view.
      expect(texts(views[views.length - 1]!.words)).toBe(texts(script));
      const decodes = log.length;
      const final = await stream.finish(audio.subarray(0, pauseEnd));
      expect(log.length).toBe(decodes);
      expect(stream.stats.finalReused).toBe(true);
      expect(texts(final.words)).toBe(texts(script));
      expectNoRetraction([...views, final]);
    });
  }

  test("the pause audio is decoded next, before newer partial audio", async () => {
    let release!: () => void;
    const calls: StreamDecodeRequest[] = [];
    const stream = new UtteranceStream({
      profile: STREAMING_PROFILES.balanced,
      decode: async (req) => {
        calls.push(req);
        if (calls.length === 1) await new Promise<void>((r) => (release = r));
        return { text: "hello", language: "en", confidence: 1, words: [w("hello", 0, 0.5)], noSpeech: false };
      },
    });
    stream.partial(new Float32Array(RATE / 2));
    stream.partial(new Float32Array(RATE), true);
    stream.partial(new Float32Array(RATE + RATE / 4)); // speech resumed
    release();
    await stream.idle();
    expect(calls.map((c) => [c.audio.length / RATE, c.partial, c.speculative ?? false])).toEqual([
      [0.5, true, false],
      [1, false, true],
      [1.25, true, false],
    ]);
  });

  test("a speculative decode in flight is awaited by the final (even where partial decodes are not reused)", async () => {
    let release!: () => void;
    const blocked = new Promise<void>((r) => (release = r));
    const calls: StreamDecodeRequest[] = [];
    const stream = new UtteranceStream({
      profile: STREAMING_PROFILES.accurate,
      decode: async (req) => {
        calls.push(req);
        await blocked;
        return { text: "hello there", language: "en", confidence: 1, words: [w("hello", 0, 0.5), w("there", 0.6, 0.9)], noSpeech: false };
      },
    });
    stream.partial(new Float32Array(RATE), true);
    const final = stream.finish(new Float32Array(RATE - 200));
    release();
    expect((await final).text).toBe("hello there");
    expect(calls.map((c) => c.speculative)).toEqual([true]);
  });

  /** A stream whose utterance before is being recognized until `recognize()`, which also sets the context it leaves. */
  function afterPending() {
    let context = "";
    let release!: () => void;
    let pending: Promise<void> | null = new Promise<void>((r) => (release = r));
    const calls: { req: StreamDecodeRequest; context: string }[] = [];
    const stream = new UtteranceStream({
      profile: STREAMING_PROFILES.balanced,
      context: () => context,
      contextPending: () => pending,
      decode: async (req) => {
        calls.push({ req, context });
        const word = context === "" ? "For." : "Four.";
        return { text: word, language: "en", confidence: 1, words: [w(word, 0.1, 0.5)], noSpeech: false };
      },
    });
    const recognize = async () => {
      const was = pending!;
      context = "Three.";
      pending = null;
      release();
      await was;
    };
    return { stream, calls, recognize };
  }

  test("a pause's speculative final waits for the utterance before it to be recognized, then decodes with its text, and is the final", async () => {
    const { stream, calls, recognize } = afterPending();
    stream.partial(new Float32Array(RATE), true); // the pause, while the utterance before is pending
    await Bun.sleep(5);
    expect(calls.length).toBe(0); // no decode the final would throw away
    await recognize();
    await stream.idle();
    expect(calls.map((c) => [c.req.speculative ?? false, c.context])).toEqual([[true, "Three."]]);
    expect((await stream.finish(new Float32Array(RATE - 200))).text).toBe("Four.");
    expect(calls.length).toBe(1);
    expect(stream.stats.finalReused).toBe(true);
    expect(stream.stats.contextWaits).toBe(1);
  });

  test("the final asked while the pause's decode waits for the utterance before: one decode, once that one is recognized", async () => {
    const { stream, calls, recognize } = afterPending();
    stream.partial(new Float32Array(RATE), true);
    const final = stream.finish(new Float32Array(RATE - 200));
    await Bun.sleep(5);
    expect(calls.length).toBe(0);
    await recognize();
    expect((await final).text).toBe("Four.");
    expect(calls.map((c) => [c.req.speculative ?? false, c.context])).toEqual([[false, "Three."]]);
  });

  test("speech resuming while the pause's decode waits for the utterance before: the pause is not decoded, the new audio is", async () => {
    let recognize!: () => void;
    let pending: Promise<void> | null = new Promise<void>((r) => (recognize = r));
    const calls: StreamDecodeRequest[] = [];
    const stream = new UtteranceStream({
      profile: { ...STREAMING_PROFILES.balanced, partialHoldMs: 0 },
      contextPending: () => pending,
      decode: async (req) => {
        calls.push(req);
        return { text: "Four five.", language: "en", confidence: 1, words: [w("Four", 0.1, 0.5), w("five.", 1.1, 1.5)], noSpeech: false };
      },
    });
    stream.partial(new Float32Array(RATE), true);
    await Bun.sleep(5);
    stream.partial(new Float32Array(2 * RATE)); // speech again
    await stream.idle();
    expect(calls.map((c) => [c.speculative ?? false, c.audio.length])).toEqual([[false, 2 * RATE]]);
    pending = null;
    recognize();
  });

  test("a speculative final asked once every utterance before it was recognized is the final", async () => {
    const calls: StreamDecodeRequest[] = [];
    const stream = new UtteranceStream({
      profile: STREAMING_PROFILES.balanced,
      contextPending: () => null,
      decode: async (req) => {
        calls.push(req);
        return { text: "Four.", language: "en", confidence: 1, words: [w("Four.", 0.1, 0.5)], noSpeech: false };
      },
    });
    stream.partial(new Float32Array(RATE), true);
    await stream.idle();
    expect((await stream.finish(new Float32Array(RATE - 200))).text).toBe("Four.");
    expect(calls.length).toBe(1);
    expect(stream.stats.finalReused).toBe(true);
  });

  test("speech resuming after the pause: the final covers the later speech too", async () => {
    for (const name of ["low_latency", "accurate"] as const) {
      const { log, stream } = setup(STREAMING_PROFILES[name]);
      const audio = new Float32Array(3 * RATE);
      stream.partial(audio.subarray(0, Math.round(1.214 * RATE)), true); // a pause after v2
      await stream.idle();
      expect(log[0]!.speculative).toBe(true);
      for (const t of [1.6, 2.0]) {
        stream.partial(audio.subarray(0, Math.round(t * RATE)));
        await stream.idle();
      }
      const final = await stream.finish(audio.subarray(0, pauseEnd));
      expect(stream.stats.finalReused).toBe(false);
      expect(texts(final.words)).toBe(texts(script));
      expect(log[log.length - 1]!.partial).toBe(false);
      expect(log[log.length - 1]!.speculative).toBeUndefined();
    }
  });
});

describe("commit margin", () => {
  /** Every decode hears "hello wor": the audio ends 0.1 s after the start of a cut-off word. */
  async function committedAfterTwo(commitMarginS: number): Promise<string> {
    const stream = new UtteranceStream({
      profile: { ...STREAMING_PROFILES.low_latency, commitMarginS },
      decode: async (req) => {
        const end = req.audio.length / RATE;
        const words = [w("hello", 0, 0.5), w("wor", end - 0.2, end)];
        return { text: "hello wor", language: "en", confidence: 1, words, noSpeech: false };
      },
    });
    for (const s of [2, 2.1]) {
      stream.partial(new Float32Array(s * RATE));
      await stream.idle();
    }
    return texts(stream.committedWords);
  }

  test("a word ending within the margin of the decoded audio's end is not committed, however often it is agreed on", async () => {
    expect(await committedAfterTwo(0)).toBe("hello wor");
    expect(await committedAfterTwo(0.3)).toBe("hello");
  });

  test("every profile keeps a margin and a minimum decoded length", () => {
    for (const p of Object.values(STREAMING_PROFILES)) {
      expect(p.commitMarginS).toBeGreaterThan(0);
      expect(p.minCommitAudioS).toBeGreaterThan(0);
    }
  });

  test("nothing is committed before the utterance has the minimum audio", async () => {
    const stream = new UtteranceStream({
      profile: { ...STREAMING_PROFILES.low_latency, minCommitAudioS: 1.5 },
      decode: async () => ({ text: "like your", language: "en", confidence: 1, words: [w("like", 0, 0.3), w("your", 0.4, 0.6)], noSpeech: false }),
    });
    for (const s of [1, 1.2, 1.4]) {
      stream.partial(new Float32Array(s * RATE));
      await stream.idle();
    }
    expect(stream.committedWords).toEqual([]);
    stream.partial(new Float32Array(1.6 * RATE));
    await stream.idle();
    expect(texts(stream.committedWords)).toBe("like your");
  });
});

/** A decode that waits until released or aborted (then it rejects). */
function gated() {
  const calls: { req: StreamDecodeRequest; signal?: AbortSignal; release: () => void }[] = [];
  const decode = (req: StreamDecodeRequest, signal?: AbortSignal) =>
    new Promise<TranscribeResult>((resolve, reject) => {
      const release = () => resolve({ text: "hello", language: "en", confidence: 1, words: [w("hello", 0, 0.5)], noSpeech: false });
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      calls.push({ req, signal, release });
    });
  return { calls, decode };
}

describe("decodes that are no longer wanted are aborted", () => {
  test("a pause aborts the partial decode in flight; its own decode starts at once", async () => {
    const { calls, decode } = gated();
    const errors: unknown[] = [];
    const stream = new UtteranceStream({ profile: STREAMING_PROFILES.low_latency, decode, onError: (e) => errors.push(e) });
    stream.partial(new Float32Array(RATE));
    stream.partial(new Float32Array(RATE + RATE / 2), true);
    await Bun.sleep(0);
    expect(calls[0]!.signal!.aborted).toBe(true);
    expect(calls.map((c) => c.req.speculative ?? false)).toEqual([false, true]);
    expect(calls[1]!.signal!.aborted).toBe(false);
    // Speech goes on briefly, then pauses again: the first pause's decode gives way too.
    stream.partial(new Float32Array(RATE * 2), true);
    await Bun.sleep(0);
    expect(calls[1]!.signal!.aborted).toBe(true);
    expect(calls.map((c) => c.req.audio.length / RATE)).toEqual([1, 1.5, 2]);
    calls[2]!.release();
    const final = await stream.finish(new Float32Array(RATE * 2));
    expect(final.text).toBe("hello");
    expect(calls).toHaveLength(3);
    expect(errors).toEqual([]); // an abort is not an error
  });

  test("the final aborts a decode in flight that it does not use", async () => {
    const { calls, decode } = gated();
    const stream = new UtteranceStream({ profile: STREAMING_PROFILES.balanced, decode });
    stream.partial(new Float32Array(RATE));
    const final = stream.finish(new Float32Array(2 * RATE));
    await Bun.sleep(0);
    expect(calls[0]!.signal!.aborted).toBe(true);
    expect(calls[1]!.req.partial).toBe(false);
    calls[1]!.release();
    expect((await final).text).toBe("hello");
  });
});

describe("a partial waits holdPartialsMs before its decode", () => {
  const hold = 300; // a stall of up to 200 ms between a partial and the next line still reads the same
  const held = (decode: ReturnType<typeof gated>["decode"]) =>
    new UtteranceStream({ profile: { ...STREAMING_PROFILES.balanced, restWhenBehind: 0 }, decode, holdPartialsMs: hold });

  test("a pause arriving meanwhile replaces it: only the speculative final is decoded", async () => {
    const { calls, decode } = gated();
    const stream = held(decode);
    stream.partial(new Float32Array(RATE));
    await Bun.sleep(hold / 3);
    expect(calls).toHaveLength(0);
    stream.partial(new Float32Array(RATE + RATE / 10), true);
    await Bun.sleep(0);
    expect(calls.map((c) => c.req.speculative ?? false)).toEqual([true]);
    await Bun.sleep(hold * 2);
    expect(calls).toHaveLength(1);
  });

  test("without a pause it is decoded once the hold is over, with the newest audio", async () => {
    const { calls, decode } = gated();
    const stream = held(decode);
    const t0 = performance.now();
    stream.partial(new Float32Array(RATE));
    await Bun.sleep(hold / 3);
    stream.partial(new Float32Array(RATE + RATE / 10));
    while (calls.length === 0) await Bun.sleep(2);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(hold - 2);
    expect(calls.map((c) => [c.req.partial, c.req.audio.length])).toEqual([[true, RATE + RATE / 10]]);
  });

  test("audio queued behind a decode that outlasted the hold is decoded as soon as that decode ends", async () => {
    const { calls, decode } = gated();
    const stream = held(decode);
    stream.partial(new Float32Array(RATE));
    while (calls.length === 0) await Bun.sleep(2);
    stream.partial(new Float32Array(2 * RATE));
    await Bun.sleep(hold + 10);
    expect(calls).toHaveLength(1);
    calls[0]!.release();
    await Bun.sleep(1);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.req.audio.length).toBe(2 * RATE);
  });

  test("the final ends the hold without decoding the held audio", async () => {
    const { calls, decode } = gated();
    const stream = held(decode);
    stream.partial(new Float32Array(RATE));
    const final = stream.finish(new Float32Array(RATE + RATE / 10));
    await Bun.sleep(0);
    expect(calls.map((c) => [c.req.partial, c.req.audio.length])).toEqual([[false, RATE + RATE / 10]]);
    calls[0]!.release();
    expect((await final).text).toBe("hello");
    await Bun.sleep(hold * 2);
    expect(calls).toHaveLength(1);
  });
});

/** Streams `until` seconds of silence-free "speech" in partials, then finishes 0.986 s before its end (as `run` above). */
async function streamed(profile: StreamingProfile, decode: (req: StreamDecodeRequest) => Promise<TranscribeResult>, until = 21) {
  const views: StreamView[] = [];
  const stream = new UtteranceStream({ profile, decode, onPartial: (v) => views.push(v) });
  const audio = new Float32Array(until * RATE);
  for (let t = 0.5; t <= until; t += profile.partialIntervalMs / 1000) {
    stream.partial(audio.subarray(0, Math.round(t * RATE)));
    await stream.idle();
  }
  const final = await stream.finish(audio.subarray(0, Math.round((until - 0.986) * RATE)));
  return { views, final, stream };
}

describe("decodes that read a word two ways", () => {
  test("commit the words they agree on after it, so the buffer is still cut", async () => {
    const script = Array.from({ length: 40 }, (_, i) => w(`w${i}${i % 8 === 7 ? "." : ""}`, i * 0.5, i * 0.5 + 0.45));
    const profile: StreamingProfile = { ...STREAMING_PROFILES.balanced, maxBufferS: 5, hardBufferS: 8 };
    const log: StreamDecodeRequest[] = [];
    const inner = scriptedDecode(script, log);
    // Every other decode reads w3 as two words, as a greedy partial and a beam search read one word differently.
    let n = 0;
    const decode = async (req: StreamDecodeRequest) => {
      const r = await inner(req);
      if (req.background || n++ % 2 === 0) return r;
      const words = r.words.flatMap((x) => (x.word === "w3" ? [{ ...x, word: "double" }, { ...x, word: "you" }] : [x]));
      return { ...r, words, text: texts(words) };
    };
    const { views, final, stream } = await streamed(profile, decode);
    expect(stream.stats.cuts).toBeGreaterThan(0);
    expect(stream.stats.maxDecodedSeconds).toBeLessThanOrEqual(profile.hardBufferS + profile.partialIntervalMs / 1000);
    expectNoRetraction([...views, final]);
    expect(final.text.replace("double you", "w3")).toBe(texts(script));
  });
});

describe("a decode that writes its prompt out again", () => {
  test("is decoded again without the prompt, as are the later decodes of its buffer", async () => {
    const vocabulary = "harbor quiet early morning fishing boats rocked gently against wooden pier while gulls circled above water looking scraps master walked along dock holding coffee checking ropes counting weather report promised calm light winds village knew rare autumn storms arrived".split(" ");
    const script = vocabulary.map((x, i) => w(`${x}${i % 8 === 7 ? "." : ""}`, i * 0.5, i * 0.5 + 0.45));
    const profile: StreamingProfile = { ...STREAMING_PROFILES.balanced, maxBufferS: 5, hardBufferS: 8 };
    const log: StreamDecodeRequest[] = [];
    const inner = scriptedDecode(script, log);
    // Prompted with more than eight words, a decode of the buffer reads its prompt's last ten words.
    const decode = async (req: StreamDecodeRequest) => {
      const prompt = req.previousText.split(" ").filter((x) => x !== "");
      if (req.background || prompt.length <= 8) return inner(req);
      log.push(req);
      const words = prompt.slice(-10).map((x, i) => w(x, i * 0.4, i * 0.4 + 0.3));
      return { text: texts(words), language: "en", confidence: 0.9, words, noSpeech: false };
    };
    const { views, final, stream } = await streamed(profile, decode);
    expect(final.text).toBe(texts(script));
    for (const v of views) expect(new Set(v.words.map((x) => x.word)).size).toBe(v.words.length);
    expect(stream.stats.promptCopies).toBeGreaterThan(0);
    // Once per buffer: the decodes after a copy go unprompted until the buffer is cut again.
    expect(stream.stats.promptCopies).toBeLessThanOrEqual(stream.stats.cuts);
  });
});

describe("greedy decodes that agree on a loop", () => {
  const script = Array.from({ length: 40 }, (_, i) => w(`w${i}${i % 8 === 7 ? "." : ""}`, i * 0.5, i * 0.5 + 0.45));

  test("do not commit it, and the final reads that audio again with the final settings", async () => {
    const profile: StreamingProfile = { ...STREAMING_PROFILES.balanced, maxBufferS: 5, hardBufferS: 20 };
    const log: StreamDecodeRequest[] = [];
    // Greedy partials hear words 8–23 (noise, say) as one phrase four times over; beam searches hear the words.
    const loop = ["The", "hero", "is", "one."];
    const decode = scriptedDecode(script, log, (x, i) => (i >= 8 && i < 24 ? loop[(i - 8) % 4]! : x));
    const { views, final, stream } = await streamed(profile, decode);
    const times = (text: string) => text.split("The hero is one.").length - 1;
    for (const v of views) expect(times(texts(v.committed))).toBeLessThan(3);
    expect(stream.stats.loopHolds).toBeGreaterThan(0);
    expectNoRetraction(views);
    expect(final.text).toBe(texts(script));
  });

  test("past the hard buffer limit the loop is committed after all: no decode grows without bound", async () => {
    const profile: StreamingProfile = { ...STREAMING_PROFILES.balanced, maxBufferS: 3, hardBufferS: 5 };
    const log: StreamDecodeRequest[] = [];
    // The greedy partials hear the whole rest of the utterance, from word 8 on, as one phrase over and over.
    const loop = ["The", "hero", "is", "one."];
    const decode = scriptedDecode(script, log, (x, i) => (i >= 8 ? loop[(i - 8) % 4]! : x));
    const { stream } = await streamed(profile, decode);
    expect(stream.stats.loopHolds).toBeGreaterThan(0);
    expect(stream.stats.maxDecodedSeconds).toBeLessThanOrEqual(profile.hardBufferS + 2 * (profile.partialIntervalMs / 1000));
  });
});

describe("a final decode that skipped committed words", () => {
  test("is decoded again without the prompt", async () => {
    const all = [w("a", 0, 0.3), w("b", 0.4, 0.7), w("c", 0.8, 1.1), w("d", 1.2, 1.5), w("e", 1.9, 2.2)];
    const calls: StreamDecodeRequest[] = [];
    const stream = new UtteranceStream({
      profile: STREAMING_PROFILES.low_latency,
      context: "earlier words",
      decode: async (req) => {
        calls.push(req);
        const end = req.audio.length / RATE;
        // With a prompt, the final-settings decode hears only "d" (Whisper skipping what it takes for said).
        const words = !req.partial && req.previousText !== "" ? [all[3]!] : all.filter((x) => x.end <= end);
        return { text: texts(words), language: "en", confidence: 1, words, noSpeech: false };
      },
    });
    for (const s of [1.8, 1.9]) {
      stream.partial(new Float32Array(s * RATE));
      await stream.idle();
    }
    expect(texts(stream.committedWords)).toBe("a b c d");
    stream.partial(new Float32Array(2.3 * RATE), true);
    await stream.idle();
    const final = await stream.finish(new Float32Array(2.3 * RATE));
    expect(final.text).toBe("a b c d e");
    expect(stream.stats.finalReused).toBe(false);
    expect(calls.map((c) => [c.partial, c.previousText])).toEqual([
      [true, "earlier words"],
      [true, "earlier words"],
      [false, "earlier words"], // the speculative decode: skipped, not used
      [false, "earlier words"], // the final's own decode: skipped too
      [false, ""],
    ]);
  });
});

describe("a final-settings decode that stopped early", () => {
  // Ten words over 5 s, none committed (agreement never reached): only the decodes' word ends count.
  const all = Array.from({ length: 10 }, (_, i) => w(`w${i}`, i * 0.5, i * 0.5 + 0.4));
  /** `heard(req)`: how many words a final-settings decode reads (Whisper ending its window early, the rest unread). */
  function stream(heard: (req: StreamDecodeRequest) => number, context: string) {
    const calls: StreamDecodeRequest[] = [];
    const s = new UtteranceStream({
      profile: { ...STREAMING_PROFILES.balanced, agreement: 5 },
      context,
      decode: async (req) => {
        calls.push(req);
        // The words inside the request's audio (a view of the utterance's), times relative to it.
        const from = req.audio.byteOffset / Float32Array.BYTES_PER_ELEMENT / RATE;
        const to = from + req.audio.length / RATE;
        const inside = all.filter((x) => x.start >= from - 1e-6 && x.end <= to + 1e-6).map((x) => ({ ...x, start: x.start - from, end: x.end - from }));
        const words = req.partial ? inside : inside.slice(0, heard(req));
        return { text: texts(words), language: "en", confidence: 1, words, noSpeech: false };
      },
    });
    return { calls, s };
  }
  async function final(heard: (req: StreamDecodeRequest) => number, context = "earlier words") {
    const { calls, s } = stream(heard, context);
    s.partial(new Float32Array(5 * RATE)); // the partial hears w0…w9 (to 4.9 s)
    await s.idle();
    const view = await s.finish(new Float32Array(5.2 * RATE));
    return { text: view.text, calls: calls.map((c) => [c.partial, c.previousText]) };
  }

  test("whose words end 2 s before an earlier decode's is decoded again without the prompt", async () => {
    // Prompted, it stops after w1 (0.9 s).
    const { text, calls } = await final((req) => (req.previousText !== "" ? 2 : 10));
    expect(text).toBe(texts(all));
    expect(calls).toEqual([
      [true, "earlier words"],
      [false, "earlier words"],
      [false, ""],
    ]);
  });

  test("a second reading that ends earlier does not replace the first; the audio after both is decoded on its own", async () => {
    // Prompted, it stops after w4 (2.4 s); unprompted, after w1. The rest (from 2.1 s), prompted
    // with the text so far, is read to its end.
    const { text, calls } = await final((req) => (req.previousText !== "" ? 5 : 2));
    expect(text).toBe(texts(all));
    expect(calls).toEqual([
      [true, "earlier words"],
      [false, "earlier words"],
      [false, ""],
      [false, `earlier words ${texts(all.slice(0, 5))}`],
    ]);
  });

  test("without text before it (no prompt, no lead) is not asked again unprompted: the rest is decoded on its own", async () => {
    // The first utterance of a channel: its final-settings decode stops after w4 (2.4 s).
    const { text, calls } = await final((req) => (req.previousText !== "" ? 10 : 5), "");
    expect(text).toBe(texts(all));
    expect(calls).toEqual([
      [true, ""],
      [false, ""],
      [false, texts(all.slice(0, 5))],
    ]);
  });

  test("within 2 s of an earlier decode's words is the final", async () => {
    // It stops after w6 (3.4 s): 1.5 s before w9's end. Nothing is decoded after it.
    const { text, calls } = await final(() => 7);
    expect(text).toBe(texts(all.slice(0, 7)));
    expect(calls).toHaveLength(2);
  });
});

describe("a final whose reading ends long before its audio", () => {
  // Twelve words over 6 s; the partial decode hears the first four, the pause's speculative final
  // (final settings, the final's tail) reads `heard` of them: Whisper ends its window early.
  const all = Array.from({ length: 12 }, (_, i) => w(`w${i}`, i * 0.5, i * 0.5 + 0.4));
  async function final(heard: number) {
    const calls: StreamDecodeRequest[] = [];
    const s = new UtteranceStream({
      profile: { ...STREAMING_PROFILES.balanced, agreement: 5 },
      context: "earlier words",
      decode: async (req) => {
        calls.push(req);
        const from = req.audio.byteOffset / Float32Array.BYTES_PER_ELEMENT / RATE;
        const to = from + req.audio.length / RATE;
        const inside = all.filter((x) => x.start >= from - 1e-6 && x.end <= to + 1e-6).map((x) => ({ ...x, start: x.start - from, end: x.end - from }));
        const words = req.speculative ? inside.slice(0, heard) : inside;
        return { text: texts(words), language: "en", confidence: 1, words, noSpeech: false };
      },
    });
    const audio = new Float32Array(6.1 * RATE);
    s.partial(audio.subarray(0, 2 * RATE));
    await s.idle();
    s.partial(audio, true);
    await s.idle();
    const view = await s.finish(audio);
    return { text: view.text, calls: calls.map((c) => [c.partial, c.speculative ?? false, c.audio.byteOffset / Float32Array.BYTES_PER_ELEMENT / RATE]) };
  }

  test("3 s or more before, with no decode past it: the rest is decoded on its own, prompted with the text so far", async () => {
    // The speculative final stops after w5 (2.9 s): 3.2 s of the audio unread.
    const { text, calls } = await final(6);
    expect(text).toBe(texts(all));
    expect(calls).toEqual([
      [true, false, 0],
      [false, true, 0],
      [false, false, 2.6],
    ]);
  });

  test("less than 3 s before: the reading is the final", async () => {
    // It stops after w7 (3.9 s): 2.2 s before the audio's end.
    const { text, calls } = await final(8);
    expect(text).toBe(texts(all.slice(0, 8)));
    expect(calls).toHaveLength(2);
  });
});

describe("a covering partial decode that heard nothing", () => {
  test("is not the final: the final-settings decode decides", async () => {
    const said = [w("hello", 0.1, 0.4), w("there", 0.5, 0.8)];
    const calls: StreamDecodeRequest[] = [];
    const stream = new UtteranceStream({
      profile: STREAMING_PROFILES.low_latency,
      // The greedy partial runs away and the engine drops it (no words); the final's search hears the words.
      decode: async (req) => {
        calls.push(req);
        const words = req.partial ? [] : said;
        return { text: texts(words), language: "en", confidence: 1, words, noSpeech: false };
      },
    });
    stream.partial(new Float32Array(1 * RATE));
    await stream.idle();
    const final = await stream.finish(new Float32Array(1 * RATE));
    expect(final.text).toBe("hello there");
    expect(stream.stats.finalReused).toBe(false);
    expect(calls.map((c) => c.partial)).toEqual([true, false]);
  });
});

describe("context given as a function", () => {
  test("is read at every decode: a final recognized meanwhile prompts the later decodes", async () => {
    const prompts: string[] = [];
    let context = "";
    const stream = new UtteranceStream({
      profile: STREAMING_PROFILES.balanced,
      context: () => context,
      decode: async (req) => {
        prompts.push(req.previousText);
        const words = [w("b", 0.1, 0.4)];
        return { text: texts(words), language: "en", confidence: 1, words, noSpeech: false };
      },
    });
    stream.partial(new Float32Array(0.5 * RATE));
    await stream.idle();
    context = "a."; // the utterance before this one is recognized
    stream.partial(new Float32Array(1 * RATE), true);
    await stream.idle();
    expect((await stream.finish(new Float32Array(1 * RATE))).text).toBe("b");
    expect(prompts).toEqual(["", "a."]);
  });
});

describe("partials shed when the recognizer is behind", () => {
  /** Decodes answered by hand: `answer()` resolves one. */
  function manual() {
    const calls: { req: StreamDecodeRequest; answer: () => void }[] = [];
    const decode = (req: StreamDecodeRequest) =>
      new Promise<TranscribeResult>((resolve) => {
        const answer = () => resolve({ text: "hello", language: "en", confidence: 1, words: [w("hello", 0, 0.5)], noSpeech: false });
        calls.push({ req, answer });
      });
    return { calls, decode };
  }
  const seconds = (calls: { req: StreamDecodeRequest }[]) => calls.map((c) => c.req.audio.length / RATE);
  /** The profile's interval is 1 ms, so a partial answered after 300 ms was behind by about 300 ms. */
  const slow = { ...STREAMING_PROFILES.low_latency, partialIntervalMs: 1, restWhenBehind: 1, maxRestS: 60 };

  test("after a partial decode slower than the partial interval, the next partial waits; a pause does not", async () => {
    const { calls, decode } = manual();
    const stream = new UtteranceStream({ profile: slow, decode });
    stream.partial(new Float32Array(RATE));
    await Bun.sleep(300);
    stream.partial(new Float32Array(2 * RATE));
    calls[0]!.answer();
    await Bun.sleep(10);
    // Resting: the newer partial audio is not decoded yet.
    expect(seconds(calls)).toEqual([1]);
    expect(stream.stats.rests).toBe(1);
    // A pause ends the rest at once, and its audio (newer) replaces the waiting partial audio.
    stream.partial(new Float32Array(2.5 * RATE), true);
    await Bun.sleep(0);
    expect(seconds(calls)).toEqual([1, 2.5]);
    expect(calls[1]!.req.speculative).toBe(true);
    calls[1]!.answer();
    expect((await stream.finish(new Float32Array(2.5 * RATE))).text).toBe("hello");
    expect(calls).toHaveLength(2);
  });

  test("the final ends a rest without decoding the waiting partial audio", async () => {
    const { calls, decode } = manual();
    const stream = new UtteranceStream({ profile: { ...slow, reuseCoveringDecode: false }, decode });
    stream.partial(new Float32Array(RATE));
    await Bun.sleep(300);
    stream.partial(new Float32Array(2 * RATE));
    calls[0]!.answer();
    await Bun.sleep(10);
    const final = stream.finish(new Float32Array(3 * RATE));
    await Bun.sleep(0);
    expect(seconds(calls)).toEqual([1, 3]);
    expect(calls[1]!.req.partial).toBe(false);
    calls[1]!.answer();
    expect((await final).text).toBe("hello");
    await stream.idle();
    expect(calls).toHaveLength(2);
  });

  test("without rests (restWhenBehind 0) a slow partial is followed at once", async () => {
    const { calls, decode } = manual();
    const stream = new UtteranceStream({ profile: { ...slow, restWhenBehind: 0 }, decode });
    stream.partial(new Float32Array(RATE));
    await Bun.sleep(300);
    stream.partial(new Float32Array(2 * RATE));
    calls[0]!.answer();
    await Bun.sleep(0);
    expect(seconds(calls)).toEqual([1, 2]);
    expect(stream.stats.rests).toBe(0);
    calls[1]!.answer();
    await stream.idle();
  });

});

describe("the seconds a final counts (transcription_time)", () => {
  /** Decodes released by hand on a clock the test moves. */
  function clocked() {
    const clock = { t: 0 };
    return { clock, ...gated(), now: () => clock.t };
  }
  const noRest = { restWhenBehind: 0 };

  test("a speculative decode that becomes the final: its time only, not the partial before it nor the one it aborted", async () => {
    const { clock, calls, decode, now } = clocked();
    const stream = new UtteranceStream({ profile: { ...STREAMING_PROFILES.low_latency, ...noRest }, decode, now });
    stream.partial(new Float32Array(RATE));
    clock.t = 200;
    calls[0]!.release(); // a partial: 0.2 s
    await Bun.sleep(0);
    stream.partial(new Float32Array(2 * RATE));
    await Bun.sleep(0);
    clock.t = 500;
    stream.partial(new Float32Array(2.5 * RATE), true); // aborts the 0.3 s partial in flight
    await Bun.sleep(0);
    expect(calls[1]!.signal!.aborted).toBe(true);
    clock.t = 1200;
    calls[2]!.release(); // the speculative final: 0.7 s
    const final = await stream.finish(new Float32Array(2.5 * RATE));
    expect(stream.stats.finalReused).toBe(true);
    expect(final.seconds).toBeCloseTo(0.7, 9);
  });

  test("a speculative decode that speech went on after, and an aborted partial, do not count: the final's own decode does", async () => {
    const { clock, calls, decode, now } = clocked();
    const stream = new UtteranceStream({ profile: { ...STREAMING_PROFILES.accurate, ...noRest }, decode, now });
    stream.partial(new Float32Array(RATE), true);
    clock.t = 400;
    calls[0]!.release(); // speculative, 0.4 s: speech goes on
    await Bun.sleep(0);
    stream.partial(new Float32Array(2 * RATE));
    await Bun.sleep(0);
    clock.t = 600;
    const final = stream.finish(new Float32Array(3 * RATE)); // aborts the partial in flight (not covering)
    await Bun.sleep(0);
    expect(calls[1]!.signal!.aborted).toBe(true);
    expect(calls[2]!.req.partial).toBe(false);
    clock.t = 1500;
    calls[2]!.release();
    expect((await final).seconds).toBeCloseTo(0.9, 9);
  });

  test("a partial view counts its one decode", async () => {
    const { clock, calls, decode, now } = clocked();
    const views: StreamView[] = [];
    const stream = new UtteranceStream({ profile: { ...STREAMING_PROFILES.low_latency, ...noRest }, decode, now, onPartial: (v) => views.push(v) });
    clock.t = 100;
    stream.partial(new Float32Array(RATE));
    clock.t = 350;
    calls[0]!.release();
    await stream.idle();
    expect(views.map((v) => v.seconds)).toEqual([0.25]);
  });
});

describe("quiet while sound goes on (onQuiet)", () => {
  const quietProfile = { ...STREAMING_PROFILES.balanced, partialHoldMs: 0, restWhenBehind: 0, minCommitAudioS: 0 };
  // Words up to 1.5 s, then sound in which the decodes hear nothing (background voices).
  const said = [w("please", 0.1, 0.5), w("cancel", 0.55, 0.9), w("my", 0.95, 1.1), w("order.", 1.15, 1.5)];
  /** Decodes of the utterance hear `script`; the check of a quiet stretch alone (unprompted, speculative) hears `alone`. */
  const heardUpTo = (script: WordTiming[], alone: WordTiming[] = []) => async (req: StreamDecodeRequest): Promise<TranscribeResult> => {
    const heard = req.speculative && req.previousText === "" ? alone : script.filter((x) => x.end <= req.audio.length / RATE);
    return { text: texts(heard), language: "en", confidence: 0.9, words: heard, noSpeech: heard.length === 0 };
  };

  async function feed(stream: UtteranceStream, untilS: number): Promise<void> {
    for (let t = 0.5; t <= untilS + 1e-9; t += 0.5) {
      stream.partial(new Float32Array(Math.round(t * RATE)));
      await stream.idle();
    }
  }

  test("called once, with where to cut, when two decodes heard nothing for quietS after the last word; the cut's final is the committed words without a decode", async () => {
    const quiet: number[] = [];
    const calls: StreamDecodeRequest[] = [];
    const decode = heardUpTo(said);
    const stream = new UtteranceStream({
      profile: quietProfile,
      quietS: 0.64,
      onQuiet: (end) => quiet.push(end),
      decode: (req) => {
        calls.push(req);
        return decode(req);
      },
    });
    await feed(stream, 2.0);
    expect(quiet).toEqual([]); // the last words are not committed yet, or the gap is under 0.64 s
    await feed(stream, 4.0);
    // The decode that found the quiet covered 2.5 s: the cut is its end less the commit margin.
    expect(quiet).toEqual([2.5 - quietProfile.commitMarginS]);
    // The stretch after the last word (1.5–2.5 s) was decoded alone, unprompted, before.
    const check = calls.find((c) => c.speculative && c.previousText === "")!;
    expect(check.audio.length).toBe(RATE);
    expect(check.partial).toBe(false);
    const decodes = calls.length;
    const final = await stream.finish(new Float32Array(Math.round(quiet[0]! * RATE)));
    expect(final.text).toBe("please cancel my order.");
    expect(calls.length).toBe(decodes);
  });

  test("not called while the stretch decoded alone holds words (a prompted decode skipped them); checked again a window later", async () => {
    const checks: number[] = [];
    const quiet: number[] = [];
    const decode = heardUpTo(said, [w("five", 0.1, 0.4), w("five", 0.5, 0.8)]);
    const stream = new UtteranceStream({
      profile: quietProfile,
      quietS: 0.64,
      onQuiet: (end) => quiet.push(end),
      decode: (req) => {
        if (req.speculative && req.previousText === "") checks.push(req.audio.length / RATE);
        return decode(req);
      },
    });
    await feed(stream, 4.0);
    expect(quiet).toEqual([]);
    // At 2.5 s (1 s after the last word), then once the stretch had grown by another 0.64 s.
    expect(checks).toEqual([1, 2]);
    await stream.finish(new Float32Array(4 * RATE));
  });

  test("never called while words keep coming, nor without quietS", async () => {
    const talk = Array.from({ length: 12 }, (_, i) => w(`w${i}`, i * 0.5, i * 0.5 + 0.4));
    for (const quietS of [0.64, undefined]) {
      const quiet: number[] = [];
      const stream = new UtteranceStream({ profile: quietProfile, ...(quietS ? { quietS } : {}), onQuiet: (end) => quiet.push(end), decode: heardUpTo(quietS ? talk : said) });
      await feed(stream, 5.5);
      expect(quiet).toEqual([]);
      await stream.finish(new Float32Array(5.5 * RATE));
    }
  });

  test("a word committed after the quiet decode, past the cut, stays out of the cut's final", async () => {
    const later = [...said, w("thanks", 2.6, 2.9)];
    let heard = said;
    const quiet: number[] = [];
    const stream = new UtteranceStream({ profile: quietProfile, quietS: 0.64, onQuiet: (end) => quiet.push(end), decode: (req) => heardUpTo(heard)(req) });
    await feed(stream, 3.0);
    expect(quiet).toHaveLength(1);
    heard = later;
    await feed(stream, 4.5);
    const final = await stream.finish(new Float32Array(Math.round(quiet[0]! * RATE)));
    expect(final.text).toBe("please cancel my order.");
  });
});
