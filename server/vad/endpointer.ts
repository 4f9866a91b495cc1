/**
 * Endpointing and segmentation of one channel.
 *
 * Audio arrives in pieces of any size; it is scored by a VAD stream chunk by chunk, smoothed with
 * hysteresis, and cut into utterances:
 * - speech starts when a chunk scores ≥ `startThreshold` and speech then lasts `minSpeechMs`
 *   without a gap longer than `candidateGapMs` (short noises are ignored);
 * - while speaking, chunks scoring ≥ `endThreshold` count as speech, lower ones as silence, and so
 *   do chunks well below the utterance's speaker once that lasts (background talk, see
 *   `foreground-level.ts`; such a silence keeps `GATED_PAD_MS` of audio, not `speechPadMs`);
 * - an utterance ends after `endpointing` seconds of continuous silence, or is cut once it has
 *   lasted `maxDurationWithoutEndpointing` seconds; `flush()` ends an open utterance.
 *
 * A cut by the maximum duration emits `utterance_final` (reason `max_duration`) and the next
 * utterance starts at that very sample, with no new speech events while speech continues. The cut
 * falls where the speaker is least likely to be mid-word (see `CUT_SEARCH_S`), never before the end
 * of a partial emitted without a `commitLimit`: a recognizer may have committed words up to there.
 * The recognizer may also ask for a cut (`cut`, reason `recognizer`): it heard the words end while
 * the VAD still hears sound (background voices, noise); that cut is made in the same way.
 *
 * Times are seconds from the first sample of the channel. Utterance audio starts a little before
 * the detected speech (`preRollMs`) and ends `speechPadMs` after it. Memory is bounded by the open
 * utterance plus the pre-roll.
 */

import type { VadStream } from "../../workers/contract/vad.ts";
import { liveDefaults } from "../options/defaults.ts";
import type { Endpointer, EndpointerEvent, EndpointerOptions, UtteranceEndReason, UtteranceFinalEvent } from "./endpointer-types.ts";
import { ForegroundLevel, GATED_PAD_MS, meanPower } from "./foreground-level.ts";
import { SampleWindow } from "./sample-window.ts";

/**
 * While speaking, chunks are scored as urgent (a batching VAD holds them for no other stream) once
 * a chunk scores below this: Silero's probability falls from near 1 as speech ends, and a 100-ms
 * frame can hold both the start of a pause and the 64 ms that complete it. Measured on five clips
 * (100-ms pieces): 45 of 55 pause partials and every final came from urgent calls, which were 17 %
 * of all calls (at the start threshold, 0.5: 26 of 55, 13 %; urgent all through speech: 55 of 55, 80 %).
 * Once the pause partial is out, only the chunks that may complete the endpointing silence are
 * urgent (see `urgent`).
 */
const ENDING_PROB = 0.95;

/**
 * How far back from the maximum duration a cut is looked for: within the last `CUT_SEARCH_S`
 * seconds of the limit (at most half of it), in the longest run of silent chunks (`speechPadMs`
 * into it, where an utterance ended by that pause would end: its pause partial's end), else at the
 * chunk of lowest speech probability, else at the limit. A cut at the limit itself splits a word
 * more often than not; each piece then ends or starts mid-word, and a recognizer given a short
 * mid-word remainder tends to hallucinate (Whisper repeats its prompt). Once such a pause is found,
 * partials go on, each with that cut as its `commitLimit` (no word past it may be committed), so
 * that they do not pull the cut past it.
 */
const CUT_SEARCH_S = 3;

type Phase = "idle" | "candidate" | "speech";

/** How far below the start threshold a speaking chunk may score and still count as speech. */
const THRESHOLD_HYSTERESIS = 0.15;

/**
 * The thresholds for a session's `pre_processing.speech_threshold` (0 to 1, the contract's default
 * when absent): speech starts from it, kept within 0.01–0.99, and lasts while chunks score at
 * least 0.15 less (at least 0.01).
 */
export function speechThresholds(speechThreshold: number | null | undefined): { startThreshold: number; endThreshold: number } {
  const start = Math.min(0.99, Math.max(0.01, speechThreshold ?? liveDefaults.pre_processing!.speech_threshold!));
  return { startThreshold: start, endThreshold: Math.max(0.01, Math.round((start - THRESHOLD_HYSTERESIS) * 1000) / 1000) };
}

const DEFAULTS = {
  endpointing: liveDefaults.endpointing,
  partialIntervalMs: 500,
  partialOnPause: false,
  ...speechThresholds(null),
  minSpeechMs: 150,
  candidateGapMs: 100,
  speechPadMs: 64,
  preRollMs: 200,
  backgroundGapDb: 15 as number | null,
};

function checkOptions(o: Required<Omit<EndpointerOptions, "maxDurationWithoutEndpointing">>, max: number | null) {
  if (!(o.endpointing > 0)) throw new RangeError(`endpointing must be > 0 seconds, got ${o.endpointing}`);
  if (max !== null && !(max >= 0.1)) {
    throw new RangeError(`maxDurationWithoutEndpointing must be ≥ 0.1 seconds, got ${max}`);
  }
  if (!(o.endThreshold > 0 && o.endThreshold <= o.startThreshold && o.startThreshold < 1)) {
    throw new RangeError("thresholds must satisfy 0 < endThreshold ≤ startThreshold < 1");
  }
  for (const k of ["partialIntervalMs", "minSpeechMs", "candidateGapMs", "speechPadMs", "preRollMs"] as const) {
    if (!(o[k] >= 0)) throw new RangeError(`${k} must be ≥ 0, got ${o[k]}`);
  }
  if (o.backgroundGapDb !== null && !(o.backgroundGapDb > 0)) throw new RangeError(`backgroundGapDb must be > 0 or null, got ${o.backgroundGapDb}`);
}

/** Creates the endpointer of one channel over its VAD stream (audio at the stream's rate). */
export function createEndpointer(vad: VadStream, options: EndpointerOptions = {}): Endpointer {
  const o = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  const maxDuration = options.maxDurationWithoutEndpointing ?? null;
  checkOptions(o, maxDuration);

  const rate = vad.sampleRate;
  const frame = vad.frameSamples;
  const ms = (x: number) => Math.round((x * rate) / 1000);
  const endpointingSamples = Math.round(o.endpointing * rate);
  const maxSamples = maxDuration === null ? Infinity : Math.round(maxDuration * rate);
  const cutSearchSamples = maxDuration === null ? 0 : Math.round(Math.min(CUT_SEARCH_S, maxDuration / 2) * rate);
  const partialSamples = ms(o.partialIntervalMs);
  const minSpeechSamples = ms(o.minSpeechMs);
  const candidateGapSamples = ms(o.candidateGapMs);
  const padSamples = ms(o.speechPadMs);
  const gatedPadSamples = Math.max(padSamples, ms(GATED_PAD_MS));
  const preRollSamples = ms(o.preRollMs);
  const sec = (sample: number) => sample / rate;

  const window = new SampleWindow();
  let processed = 0; // absolute end of the last scored chunk
  let phase: Phase = "idle";
  let candidateStart = 0;
  let candidateSpeech = 0;
  let silenceStart: number | null = null;
  /** The running silence began with a chunk the VAD heard as speech (background talk, `foreground`). */
  let silenceGated = false;
  /** Audio kept past the start of the running silence: more after a gated start, a soft ending's room. */
  const endPad = () => (silenceGated ? gatedPadSamples : padSamples);
  let lastEnd = 0; // end of the previous utterance / speech: later ones never start before it
  let utteranceIndex = -1;
  let utteranceStart = 0;
  let utteranceHasSpeech = false;
  let lastPartial = 0;
  let pausePartialSent = false;
  /** Speech probability of the last chunk scored. */
  let lastProb = 0;
  /** End of the last chunk scored as speech. */
  let lastSpeechEnd = 0;
  /** End of the open utterance's last partial without a commit limit (its start before the first): no cut before it. */
  let partialEnd = 0;
  /** Cut candidates of the open utterance (sample positions; see CUT_SEARCH_S). */
  let silenceCut: { at: number; length: number } | null = null;
  let dipCut: { at: number; prob: number } | null = null;
  let finished = false;
  let chain: Promise<unknown> = Promise.resolve();
  /** A cut the recognizer asked for (`cut`): the open utterance it is for and the sample to cut at. */
  let requested: { index: number; at: number } | null = null;
  /** The open utterance's speaker level: its pauses under background talk count as silence. */
  const foreground = o.backgroundGapDb === null ? null : new ForegroundLevel(o.backgroundGapDb);

  const final = (from: number, to: number, reason: UtteranceEndReason): UtteranceFinalEvent => ({
    type: "utterance_final",
    utteranceIndex,
    start: sec(from),
    end: sec(to),
    audio: window.slice(from, to),
    reason,
  });

  function confirmSpeech(events: EndpointerEvent[]): void {
    phase = "speech";
    events.push({ type: "speech_start", time: sec(Math.max(lastEnd, candidateStart - padSamples)) });
    utteranceIndex++;
    utteranceStart = Math.max(lastEnd, candidateStart - preRollSamples, window.start);
    utteranceHasSpeech = true;
    foreground?.reset();
    // The first partial interval runs from the detected speech start, not from its confirmation.
    lastPartial = candidateStart;
    resetCut(utteranceStart);
  }

  function resetCut(from: number): void {
    partialEnd = from;
    silenceCut = null;
    dipCut = null;
  }

  /** Records chunk [from, to) as a place to cut the open utterance if it reaches the limit. */
  function considerCut(p: number, from: number, to: number): void {
    const limit = utteranceStart + maxSamples;
    const zone = limit - cutSearchSamples;
    const hi = Math.min(to, limit);
    if (silenceStart !== null && hi > zone && hi >= partialEnd) {
      const runStart = Math.max(silenceStart, zone);
      const length = hi - runStart;
      // Where an utterance ended by this pause would end (its pause partial's end, whose speculative
      // final the cut piece's final then reuses).
      const at = Math.max(partialEnd, Math.min(hi, runStart + padSamples));
      if (silenceCut === null || length >= silenceCut.length) silenceCut = { at, length };
    }
    const lo = Math.max(from, partialEnd, zone);
    if (hi > lo && (dipCut === null || p <= dipCut.prob)) dipCut = { at: Math.round((lo + hi) / 2), prob: p };
  }

  /** Ends the open utterance at sample `cut` while speech goes on: the next one starts there, without speech events. */
  function cutOpen(cut: number, reason: UtteranceEndReason, events: EndpointerEvent[]): void {
    if (utteranceHasSpeech) events.push(final(utteranceStart, cut, reason));
    utteranceIndex += utteranceHasSpeech ? 1 : 0;
    utteranceStart = cut;
    utteranceHasSpeech = lastSpeechEnd > cut;
    // The next piece's first partial is due an interval after the cut (at once if that has passed).
    lastPartial = cut;
    resetCut(cut);
  }

  function endSpeech(end: number, reason: UtteranceEndReason, events: EndpointerEvent[]): void {
    events.push({ type: "speech_end", time: sec(end) });
    if (utteranceHasSpeech && end > utteranceStart) events.push(final(utteranceStart, end, reason));
    phase = "idle";
    silenceStart = null;
    lastEnd = end;
    requested = null;
  }

  /** Applies one scored chunk [from, to) with speech probability p and mean power `power`. */
  function onChunk(p: number, power: number, from: number, to: number, events: EndpointerEvent[]): void {
    lastProb = p;
    foreground?.observe(power);
    if (phase === "idle") {
      if (p < o.startThreshold) return;
      phase = "candidate";
      candidateStart = from;
      candidateSpeech = 0;
      silenceStart = null;
    }
    let speech = p >= o.endThreshold;
    let gated = false;
    if (speech && phase === "speech" && foreground !== null) {
      gated = foreground.background();
      if (gated) speech = false;
      else foreground.addSpeech();
    }
    if (speech) silenceStart = null;
    else if (silenceStart === null) {
      silenceStart = from;
      silenceGated = gated;
    }

    if (phase === "candidate") {
      if (speech) candidateSpeech += to - from;
      if (candidateSpeech >= minSpeechSamples) {
        confirmSpeech(events);
        silenceStart = null;
      } else if (silenceStart !== null && to - silenceStart >= candidateGapSamples) {
        phase = "idle";
        silenceStart = null;
      }
      return;
    }

    // phase === "speech"
    if (speech) {
      utteranceHasSpeech = true;
      lastSpeechEnd = to;
    }
    if (requested !== null && (requested.index !== utteranceIndex || requested.at <= utteranceStart)) requested = null;
    if (requested !== null && requested.at <= to) {
      cutOpen(requested.at, "recognizer", events);
      requested = null;
    }
    if (maxSamples !== Infinity) considerCut(p, from, to);
    while (to - utteranceStart >= maxSamples) {
      const limit = utteranceStart + maxSamples;
      const chosen = silenceCut?.at ?? dipCut?.at ?? limit;
      cutOpen(chosen > utteranceStart && chosen <= limit ? chosen : limit, "max_duration", events);
    }
    if (silenceStart !== null && to - silenceStart >= endpointingSamples) {
      endSpeech(Math.min(silenceStart + endPad(), to), "endpointing", events);
      return;
    }
    if (speech) pausePartialSent = false;
    const pauseDue = o.partialOnPause && !pausePartialSent && silenceStart !== null && to - silenceStart >= endPad();
    // With pause partials, a pause's audio is decoded once, by the pause partial.
    const intervalDue = to - lastPartial >= partialSamples && !(o.partialOnPause && silenceStart !== null);
    if (partialSamples > 0 && utteranceHasSpeech && (intervalDue || pauseDue)) {
      if (pauseDue) pausePartialSent = true;
      lastPartial = to;
      // With a pause found to cut at, the partial commits nothing past it (see CUT_SEARCH_S).
      const commitLimit = silenceCut === null ? null : silenceCut.at;
      if (commitLimit === null) resetCut(to);
      events.push({
        type: "utterance_partial",
        utteranceIndex,
        start: sec(utteranceStart),
        end: sec(to),
        audio: window.slice(utteranceStart, to),
        pause: pauseDue,
        commitLimit: commitLimit === null ? null : sec(commitLimit),
      });
    }
  }

  /** Drops audio no event can need any more. */
  function trim(): void {
    let keep: number;
    if (phase === "speech") keep = utteranceStart;
    else if (phase === "candidate") keep = Math.max(lastEnd, candidateStart - preRollSamples);
    else keep = Math.max(lastEnd, processed - preRollSamples);
    window.dropBefore(Math.min(keep, processed));
  }

  /**
   * Whether chunks scored up to `end` are urgent: something waits on their scores. While speaking,
   * that is the pause partial (speech may be ending: the last chunk scored below ENDING_PROB, or
   * silence has begun and its pause partial is still to come) and the final (these chunks may
   * complete the endpointing silence). The silence between a pause partial and the chunk that could
   * end the utterance is not urgent: nothing is emitted before that chunk, so it may wait to be
   * batched with other streams' chunks.
   */
  function urgent(end: number): boolean {
    if (phase !== "speech") return false;
    if (silenceStart === null) return lastProb < ENDING_PROB;
    const pauseToCome = o.partialOnPause && partialSamples > 0 && utteranceHasSpeech && !pausePartialSent;
    return pauseToCome || end - silenceStart >= endpointingSamples;
  }

  /** Scores every whole chunk held in one VAD call, then applies the chunks in order. */
  async function scoreAvailable(events: EndpointerEvent[]): Promise<void> {
    const n = Math.floor((window.end - processed) / frame);
    if (n === 0) return;
    const audio = window.slice(processed, processed + n * frame);
    const probs = await vad.processMany(audio, urgent(processed + n * frame));
    for (let k = 0; k < n; k++) {
      onChunk(probs[k]!, meanPower(audio, k * frame, (k + 1) * frame), processed, processed + frame, events);
      processed += frame;
      trim();
    }
  }

  async function doPush(samples: Float32Array): Promise<EndpointerEvent[]> {
    if (finished) throw new Error("endpointer already flushed");
    const events: EndpointerEvent[] = [];
    window.append(samples);
    await scoreAvailable(events);
    return events;
  }

  async function doFlush(): Promise<EndpointerEvent[]> {
    if (finished) return [];
    const events: EndpointerEvent[] = [];
    await scoreAvailable(events);
    const total = window.end;
    const rest = total - processed;
    if (rest > 0) {
      const last = new Float32Array(frame);
      last.set(window.slice(processed, total));
      onChunk((await vad.processMany(last, true))[0]!, meanPower(last, 0, rest), processed, total, events);
      processed = total;
    }
    finished = true;
    if (phase === "speech") {
      endSpeech(silenceStart === null ? total : Math.min(silenceStart + endPad(), total), "flush", events);
    }
    phase = "idle";
    window.dropBefore(total);
    return events;
  }

  function enqueue<T>(job: () => Promise<T>): Promise<T> {
    const result = chain.then(job);
    chain = result.catch(() => undefined);
    return result;
  }

  return {
    sampleRate: rate,
    push: (samples) => {
      const copy = samples.slice();
      return enqueue(() => doPush(copy));
    },
    flush: () => enqueue(doFlush),
    cut: (index, time) => {
      if (phase === "speech" && index === utteranceIndex) requested = { index, at: Math.round(time * rate) };
    },
    get samplesReceived() {
      return window.end;
    },
    get samplesHeld() {
      return window.length;
    },
    get inSpeech() {
      return phase === "speech";
    },
  };
}
