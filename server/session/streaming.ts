/**
 * The streaming policy of one growing utterance on a non-streaming recognizer (Whisper): partial
 * transcripts while the utterance grows, a stable committed prefix, and a final that extends it.
 *
 * - Every partial decodes the *buffer* (the utterance audio from `bufferStart` on) with the text
 *   committed before the buffer as the prompt. Partial decodes of one utterance never overlap: audio that
 *   arrives while one runs is decoded next (only the newest), so the cadence is
 *   max(partial interval, decode time).
 * - LocalAgreement-n: the words after the committed ones are *tentative*; the longest prefix that
 *   the last `agreement` decodes share (compared without case and punctuation; a stretch of up to
 *   two words read differently, followed by four read alike, does not end it: `agreedPrefixes`) is
 *   committed, up to the last word that ends `commitMarginS` before the end of the audio in each of
 *   those decodes, and only once the utterance has `minCommitAudioS` of audio. Words that would make
 *   the utterance's committed words loop (a phrase a third time in a row: `loopFreeLength`) are not
 *   committed while the buffer is within `hardBufferS`, and the final does not take them from a
 *   greedy decode.
 *   Committed words are never taken back: every partial starts with them. The final does too,
 *   unless the profile revises them (`reviseCommitted`, below).
 * - Bounded cost: once the buffer is longer than `maxBufferS`, it is cut at the end of the latest
 *   committed word that closes a sentence or a timed segment (a gap between word timings); the
 *   words before the cut leave the buffer and become prompt. Past `hardBufferS` it is cut at the
 *   last committed word whatever it is. A decode therefore never covers more than about
 *   `hardBufferS` plus one partial interval of audio. A buffer starts 0.3 s before its cut; what
 *   a decode re-reads of the words before the cut is left out, as the committed words it repeats
 *   are (matched by letters and digits, `overlap.ts`). A decode that writes out five words of its
 *   prompt in a row (`copiesFrom`) read its prompt, not its audio: it is decoded again unprompted,
 *   as are the later decodes of that buffer.
 * - Shedding when the recognizer is behind: a partial decode that took longer (from its request to
 *   its result: the engine's queue plus the decode) than the partial interval means the engine has
 *   more work than it keeps up with; the next partial decode of the utterance then starts only after
 *   a rest of `restWhenBehind` × the excess (at most `maxRestS`), so a pause or another stream's final
 *   finds the engine free sooner. A pause or the final ends the rest.
 * - Speculative final: when speech pauses (`pause`), the utterance as it stands is decoded next with
 *   the final search settings (`finalBeamSize`), ahead of any newer partial audio. If the pause
 *   becomes the utterance's end, that decode is the final's tail: no decode runs after the
 *   endpointing window. If speech resumes, it serves as one more partial decode.
 * - Quiet while sound goes on: when the decodes hear no word for `quietS` after the committed ones,
 *   and that stretch decoded on its own holds none either (see `checkQuiet`), the stream says so
 *   once, with where to cut (`onQuiet`); the utterance is then cut there and its final is the
 *   committed words (no decode runs for it).
 * - Revised committed words (`reviseCommitted`): words agreed on by greedy partial decodes, often
 *   with little audio after them, are misheard less when decoded again with the final settings and
 *   more of their audio. Committed words cut out of the buffer are decoded again so, once, when
 *   `REVISION_TAIL_S` of audio follow the cut (`revise`); the buffer's committed words are read
 *   again by the final's own final-settings decode of the buffer. The stream's next partial waits
 *   for a running revision (`revisionWaitMs`), which otherwise, queued behind the partials, would
 *   not finish on an engine they keep busy. The final shows those readings
 *   where they read about as much text; partials keep showing the committed words, so their prefix
 *   stays stable.
 * - The final is the committed words plus the tail: the tail of the newest decode that covered the
 *   whole utterance when it was a final-settings decode (the speculative one) or the profile allows
 *   reusing partial decodes (`reuseCoveringDecode`), else of one decode of the buffer with the final
 *   search settings. A decode with less text than the committed words it should repeat skipped
 *   audio (Whisper does when the prompt ends mid-sentence), as did one whose text stops well before
 *   where an earlier decode of the utterance heard words: the final then decodes the buffer again,
 *   without the prompt if it had one; when that reading stops early too, the audio after its last
 *   word is decoded on its own and appended (`decodeRest`). So is the audio after the final's
 *   reading, whichever decode it came from, when `UNREAD_TAIL_S` or more of it went unread.
 *
 * The module knows no engine and no session: it is given a `decode` function.
 */
import type { TranscribeResult, WordTiming } from "../../workers/contract/types.ts";
import { afterCommitted, afterReread, agreedPrefixes, copiesFrom, loopFreeLength, readingOf, repeatedPairs, textLength } from "./overlap.ts";
import type { StreamView, UtteranceStreamOptions } from "./stream-types.ts";

/** Seconds of audio before a buffer cut that the next decodes still cover (see `UtteranceStream.cut`). */
const CUT_OVERLAP_S = 0.3;

/**
 * Seconds of audio after a cut that the revision of the words before it waits for and hears too: a
 * decode whose audio ends at the cut mishears the word there, cut off ("debate the month." for
 * "debate the members"), and ends its text with a full stop where the sentence goes on; and
 * Whisper reads the start of a window better with more audio after it (whisper-base wrote "Trisha,
 * you root on first" for "To reset your router, first" given 11.5 s, and "To reach your route,
 * first unplug" given 20 s).
 */
const REVISION_TAIL_S = 5;

/** A decode with less text than this share of the committed words it re-reads skipped audio. */
const SKIP_RATIO = 0.8;

/**
 * A decode whose last word ends this many seconds before the end of the words an earlier decode of
 * the utterance heard stopped early: Whisper ends a window at times with a timestamp long before
 * its audio ends (after re-reading its prompt, say) and the rest of the window goes unread.
 */
const STOPPED_EARLY_S = 2;

/**
 * A final's reading whose last word ends this many seconds or more before its audio does left
 * speech unread, even where no decode heard past it: a long reading's speculative final whose
 * window Whisper ended early, with no partial decode after it. Much more than `STOPPED_EARLY_S`:
 * under babble, word times are loose and noise the VAD calls speech follows the last word by a
 * second or two, which a decode on its own reads as Whisper's closing phrases or as the last words
 * again.
 */
const UNREAD_TAIL_S = 3;

/**
 * Word pairs a re-reading of committed words may repeat beyond those the committed words repeat
 * (`repeatedPairs`): more is a decode going round in circles ("To reach your route your route, to
 * reach your route, to reach your route," for "To reset your router, first unplug the power cable
 * and wait for about thirty seconds"), with about as much text as the words it would replace, and
 * below the engine's loop detection (a unit repeated four times).
 */
const REPEAT_SLACK = 2;

/** A re-reading `read` of the committed words `words` does not repeat itself more than they do. */
const repeatsNoMore = (read: WordTiming[], words: WordTiming[]) => repeatedPairs(read) <= repeatedPairs(words) + REPEAT_SLACK;

/** The words a decode heard (none when it heard no speech), trimmed, timed from `offset` (utterance seconds). */
const heardWords = (r: TranscribeResult, offset: number): WordTiming[] =>
  (r.noSpeech ? [] : r.words).filter((w) => w.word.trim() !== "").map((w) => ({ ...w, word: w.word.trim(), start: w.start + offset, end: w.end + offset }));

const SENTENCE_END = /[.?!…。？！]["')\]]*$/;

interface Decoded {
  /** Samples of the utterance the decode covered. */
  audioEnd: number;
  /** Words after the committed ones, utterance times. */
  tentative: WordTiming[];
  /** Every word of the decode after the text before the buffer: its own reading of the committed words, then `tentative`. */
  reread: WordTiming[];
  /** The buffer start (samples) the decode was made from. */
  bufferStart: number;
  language: string;
  confidence: number;
  partial: boolean;
  /** Wall seconds from the request to the result. */
  seconds: number;
  /**
   * The decode has less text than the committed words it should repeat: Whisper skipped part of
   * the buffer (it does so when the prompt ends mid-sentence and the buffer goes on from there); or
   * its words stop `STOPPED_EARLY_S` before those an earlier decode heard: it skipped the end.
   */
  skipped: boolean;
  /** Utterance seconds: the end of its last word (the buffer's start without one). */
  lastEnd: number;
  /** Asked before the earlier utterances were recognized (`contextPending`): its prompt or lead may not be the final's. */
  provisional: boolean;
  /** Prompted with text said before the buffer (without such text a decode has no lead either: see `LeadAudio`). */
  prompted: boolean;
}

/**
 * A final-settings decode of the committed words `done[from, from + count)`, made when they left
 * the buffer; `words` once it has returned and is usable (null: the committed words stay).
 */
interface Revision {
  from: number;
  count: number;
  words: WordTiming[] | null;
  /** The decode has returned (or failed), or is no longer wanted. */
  settled: boolean;
  /** The running attempt (null: stopped for a pause's speculative final, to be started again). */
  attempt: AbortController | null;
  /** Utterance samples the attempt decodes up to: it starts once the audio reaches them. */
  due: number;
  /** Starts an attempt on the utterance audio so far. */
  start: (audio: Float32Array) => void;
  /** A partial has waited for the running attempt (`StreamingProfile.revisionWaitMs`). */
  waited: boolean;
  /** Settles when the running attempt has returned, failed or been aborted. */
  returned: Promise<void>;
}

/** The streaming state of one utterance. */
export class UtteranceStream {
  private readonly rate: number;
  private readonly now: () => number;
  /** Committed words before the buffer (prompt). */
  private readonly done: WordTiming[] = [];
  /** Committed words inside the buffer. */
  private readonly committed: WordTiming[] = [];
  /** Tentative words of the last decodes, newest last, each relative to the current commit. */
  private history: WordTiming[][] = [];
  /** Seconds of the utterance each decode of `history` covered. */
  private historyEnds: number[] = [];
  private bufferStart = 0;
  private latest: Decoded | null = null;
  /** Utterance seconds: the end of the last word any decode of this utterance heard. */
  private heardUntil = 0;
  private running: Promise<void> | null = null;
  /** The decode in flight, the utterance samples it covers, whether it is a partial one, and its abort. */
  private inflight: { decoded: Promise<Decoded>; audioEnd: number; partial: boolean; provisional: boolean; abort: AbortController } | null = null;
  /** Newest partial audio waiting for the running decode to end. */
  private queued: Float32Array | null = null;
  /** Audio of a pause waiting for the running decode to end: decoded next, with the final settings. */
  private queuedPause: Float32Array | null = null;
  private finished = false;
  /** Seconds of the utterance past which no word may be committed (see `partial`). */
  private commitLimit = Infinity;
  /** Clock time (ms) before which no partial decode starts (the recognizer is behind), and what ends the rest early. */
  private restUntil = 0;
  private wake: (() => void) | null = null;
  /** A pause's decode is waiting for the utterances before this one to be recognized (`untilRecognized`). */
  private awaitingContext = false;
  /** Clock time (ms) since which partial audio has been waiting for a decode (null: none waiting); see `holdPartialsMs`. */
  private heldSince: number | null = null;
  /** Utterance seconds up to which a quiet stretch was decoded on its own and held words (`checkQuiet`). */
  private quietChecked = 0;
  /** That decode while it runs. */
  private checking: AbortController | null = null;
  /** The decode after which `onQuiet` was called and the end of the last committed word then (null before). */
  private quiet: { d: Decoded; wordEnd: number } | null = null;
  /** Revisions of the committed words cut out of the buffer, in order (see `revise`). */
  private readonly revisions: Revision[] = [];
  /** The buffer start (samples) whose decodes go unprompted: one of them wrote its prompt out again (`copiesFrom`). */
  private promptlessFrom = -1;
  /** Seconds of the utterance where the buffer was last cut (0: never). */
  private lastCutS = 0;
  /**
   * Decodes run so far (partial and final) and the seconds of audio they covered; and counts of the
   * policy's steps (`loopHolds`: agreements that committed fewer words than agreed, to keep a loop
   * out of the committed words).
   */
  readonly stats = { decodes: 0, decodedSeconds: 0, maxDecodedSeconds: 0, cuts: 0, finalReused: false, rests: 0, revised: 0, contextWaits: 0, promptCopies: 0, revisionWaits: 0, continued: 0, loopHolds: 0 };

  constructor(private readonly opts: UtteranceStreamOptions) {
    this.rate = opts.sampleRate ?? 16000;
    this.now = opts.now ?? (() => performance.now());
  }

  /** Seconds of the utterance before which audio is no longer decoded. */
  get bufferStartSeconds(): number {
    return this.bufferStart / this.rate;
  }

  /** Every committed word so far (utterance times). */
  get committedWords(): WordTiming[] {
    return [...this.done, ...this.committed];
  }

  /**
   * The utterance so far (all of it, from its first sample). Decodes now unless one is running,
   * in which case this audio is decoded next (replacing any audio already waiting).
   *
   * `pause`: speech has paused and `audio` ends where the final's audio would if it does not resume.
   * It is decoded with the final settings, next (before any newer partial audio): the speculative
   * final.
   *
   * `commitLimit`: seconds of the utterance past which no word may be committed from now on (the
   * utterance may be cut there: `maximum_duration_without_endpointing`); absent, no limit.
   */
  partial(audio: Float32Array, pause = false, commitLimit?: number): void {
    if (this.finished) return;
    this.commitLimit = commitLimit ?? Infinity;
    if (pause) {
      this.queuedPause = audio;
      this.queued = null; // older than the pause audio
      // A decode still running (a partial, or the speculative final of an earlier pause that speech
      // went on after) saw less than the pause audio: it gives way, as does a check for quiet (the
      // VAD has heard the pause itself).
      this.inflight?.abort.abort();
      this.checking?.abort();
      if (!this.opts.revisionsYield) this.pauseRevisions();
      this.wake?.();
    } else {
      this.queued = audio;
      this.heldSince ??= this.now();
      if (this.awaitingContext) this.wake?.(); // speech resumed: the pause's decode is moot
    }
    this.running ??= this.runPartials();
  }

  private async runPartials(): Promise<void> {
    for (;;) {
      const pause = this.queuedPause !== null;
      if (!pause && this.queued !== null && !this.finished) {
        // Partial audio waits out a rest (the recognizer is behind) and its hold (a pause may replace it).
        const now = this.now();
        const holdEnd = (this.heldSince ?? -Infinity) + (this.opts.holdPartialsMs ?? 0);
        if (now < this.restUntil || now < holdEnd) {
          if (now < this.restUntil) this.stats.rests++;
          await this.sleepUntil(Math.max(this.restUntil, holdEnd));
          continue;
        }
        // A revision of this utterance's committed words runs first (for a while: `revisionWaitMs`).
        // A pause or the final ends the wait.
        const revising = this.revisions.find((r) => !r.settled && r.attempt !== null && !r.waited);
        const wait = this.opts.profile.revisionWaitMs;
        if (revising && wait > 0) {
          revising.waited = true;
          this.stats.revisionWaits++;
          let timer: ReturnType<typeof setTimeout> | undefined;
          await this.until(Promise.race([revising.returned, new Promise<void>((r) => (timer = setTimeout(r, wait)))]));
          clearTimeout(timer);
          continue;
        }
      }
      if (pause && !this.finished) {
        // The final does not use a speculative final prompted before the utterances before it are
        // recognized (their text is its prompt and lead): rather than spend an engine on a decode
        // it would throw away, the pause's decode waits for them. Speech resuming drops it.
        // Once they are (or their recognition failed) it decodes, with no second look.
        const pending = this.opts.contextPending?.() ?? null;
        if (pending !== null) {
          if (this.queued !== null) {
            this.queuedPause = null;
            continue;
          }
          if (!(await this.untilRecognized(pending))) continue;
        }
      }
      this.heldSince = null;
      const audio = this.queuedPause ?? this.queued;
      if (audio === null || this.finished) break;
      if (pause) this.queuedPause = null;
      else this.queued = null;
      const abort = new AbortController();
      try {
        const provisional = this.provisional();
        const decoded = this.decodeBuffer(audio, !pause, this.opts.profile.finalBeamSize, pause, abort.signal);
        this.inflight = { decoded, audioEnd: audio.length, partial: !pause, provisional, abort };
        const d = await decoded.finally(() => (this.inflight = null));
        if (!pause) this.paceAfter(d.seconds * 1000);
        if (this.finished) break;
        if (this.queuedPause === null) this.startRevisions(audio);
        this.agree(d);
        this.cut(audio);
        this.opts.onPartial?.(this.view(this.history[this.history.length - 1] ?? [], d, pause && !d.skipped));
        await this.checkQuiet(d, audio);
      } catch (e) {
        if (!abort.signal.aborted) this.opts.onError?.(e);
      }
    }
    this.running = null;
  }

  /**
   * Calls `onQuiet` once the last decodes heard nothing for `quietS` after the committed words and
   * that sound, decoded on its own, holds no word either. Prompted decodes sometimes skip speech
   * (a prompt ending mid-sentence: "…at 415. I'm fine," and then nothing for "five five five"); the
   * unprompted final-settings decode of the quiet stretch hears it, and the utterance goes on. After
   * such a check the next waits until the stretch has grown by another `quietS`.
   */
  private async checkQuiet(d: Decoded, audio: Float32Array): Promise<void> {
    const q = this.opts.quietS;
    const last = this.committedWords.at(-1);
    if (this.quiet !== null || q === undefined || !this.opts.onQuiet || d.skipped || last === undefined) return;
    if (this.history.length < Math.max(1, this.opts.profile.agreement) || this.history.some((h) => h.length > 0)) return;
    const end = d.audioEnd / this.rate;
    if (end - Math.max(last.end, this.quietChecked) < q) return;
    this.quietChecked = end;
    const abort = (this.checking = new AbortController());
    const stretch = audio.subarray(Math.round(last.end * this.rate), d.audioEnd);
    const req = { audio: stretch, offset: last.end, probe: true, previousText: "", partial: false, speculative: true, beamSize: this.opts.profile.finalBeamSize };
    const heard = await this.opts.decode(req, abort.signal).then(
      (r) => !r.noSpeech && r.words.some((w) => w.word.trim() !== ""),
      () => true,
    );
    this.checking = null;
    if (heard || this.finished) return;
    this.quiet = { d, wordEnd: last.end };
    // As late as the decode vouches for (a word may be starting in its last commit margin): the
    // sound the decodes heard nothing in goes with this final, which needs no decode, not into the
    // next piece, where Whisper would be asked to make words of it.
    this.opts.onQuiet(Math.max(last.end + q / 2, d.audioEnd / this.rate - this.opts.profile.commitMarginS));
  }

  /** A partial decode took `ms` from request to result: beyond the partial interval, the next one rests. */
  private paceAfter(ms: number): void {
    const p = this.opts.profile;
    const excess = ms - p.partialIntervalMs;
    if (excess <= 0 || p.restWhenBehind <= 0) return;
    this.restUntil = this.now() + Math.min(p.maxRestS * 1000, excess * p.restWhenBehind);
  }

  /** Waits until clock time `until` (a rest or a hold); a pause or the final ends the wait. */
  private async sleepUntil(until: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.max(0, until - this.now()));
      const self = this;
      function done() {
        clearTimeout(timer);
        if (self.wake === done) self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  /**
   * Waits for the utterances before this one to be recognized: true once they are, false when new
   * audio or the final ended the wait first.
   */
  private async untilRecognized(pending: Promise<unknown>): Promise<boolean> {
    this.stats.contextWaits++;
    this.awaitingContext = true;
    const settled = await this.until(pending);
    this.awaitingContext = false;
    return settled;
  }

  /** Waits for `pending` to settle: true once it has, false when `wake` (a pause, the final) came first. */
  private until(pending: Promise<unknown>): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const self = this;
      function woken() {
        if (self.wake === woken) self.wake = null;
        resolve(false);
      }
      this.wake = woken;
      const done = () => {
        if (this.wake === woken) this.wake = null;
        resolve(true);
      };
      pending.then(done, done);
    });
  }

  /** Resolves once no decode is running or waiting. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * The utterance is complete: the committed words plus the tail. The tail comes from the newest
   * decode when it covers the whole utterance and is a final-settings decode (the speculative
   * final) or the profile allows reusing partial decodes; one in flight is awaited. Otherwise it
   * comes from a new decode, started at once (a decode still in flight that does not cover the
   * utterance is not waited for). Partials that arrive later are ignored. Revisions of committed
   * words (`revise`) that have returned when the final is asked for are used; those still running
   * are aborted.
   */
  async finish(audio: Float32Array): Promise<StreamView> {
    this.queued = null;
    this.queuedPause = null;
    this.finished = true;
    this.checking?.abort();
    this.wake?.();
    const p = this.opts.profile;
    const quiet = this.quietFinal(audio);
    if (quiet) return quiet;
    // Revisions that have not returned are not waited for: on an engine that runs one decode at a
    // time, the final's own decode would wait behind them.
    this.dropUnsettledRevisions();
    // A decode covers the final's audio up to its end. Where the utterance may have been cut (a
    // commit limit), it must not go past that end by more than a chunk or two of pause either: the
    // words after the cut belong to the next piece.
    const past = this.commitLimit === Infinity ? Infinity : Math.round(0.1 * this.rate);
    const covers = (end: number) => end >= audio.length - Math.round(0.02 * this.rate) && end <= audio.length + past;
    // A final-settings decode asked before the earlier utterances were recognized is not reused.
    const usable = (x: { audioEnd: number; partial: boolean; provisional: boolean }) => covers(x.audioEnd) && (x.partial ? p.reuseCoveringDecode : !x.provisional);
    let d: Decoded | null = null;
    let restAsked = false;
    if (this.inflight) {
      if (usable(this.inflight)) d = await this.inflight.decoded.catch(() => null);
      else this.inflight.abort.abort(); // not needed: frees the engine for the final's decode
    } else if (this.latest && usable(this.latest)) d = this.latest;
    if (d?.skipped) d = null;
    // A greedy partial that heard nothing (a runaway or repetitive decode is dropped by the engine)
    // does not decide that the utterance was silence: the final-settings decode does.
    if (d?.partial && d.tentative.length === 0 && this.committed.length === 0) d = null;
    // Nor do words the agreement kept from being committed as a loop come from a greedy decode
    // (nothing follows the final's audio: a repetition cut off at its end is not one).
    if (d?.partial && loopFreeLength(this.committedWords, d.tentative, false) < d.tentative.length) d = null;
    this.stats.finalReused = d !== null;
    if (d === null) {
      await this.opts.contextPending?.();
      d = await this.decodeBuffer(audio, false, p.finalBeamSize);
      // Decoded again without the prompt, which is what made Whisper skip (both decodes count); a
      // second reading whose words end earlier than the first's does not replace it. A decode that
      // had no prompt is not asked again: the same request gives the same reading.
      if (d.skipped) {
        const first = d;
        if (first.prompted) {
          const again = await this.decodeBuffer(audio, false, p.finalBeamSize, false, undefined, false);
          d = again.skipped && again.lastEnd < first.lastEnd ? first : again;
          d.seconds = first.seconds + again.seconds;
        }
        // The readings stopped before words an earlier decode heard: the rest is decoded on its own.
        if (d.lastEnd < this.heardUntil - STOPPED_EARLY_S) {
          d = await this.decodeRest(audio, d, p.finalBeamSize);
          restAsked = true;
        }
      }
    } else {
      // The newest decode's tail. It saw the utterance plus a little of the pause after it, so its
      // (interpolated) word times may run past the final audio: they are clamped, no word dropped.
      const end = audio.length / this.rate;
      const clamp = (w: WordTiming) => ({ ...w, start: Math.min(w.start, end), end: Math.min(w.end, end) });
      d = { ...d, audioEnd: audio.length, tentative: d.tentative.map(clamp), reread: d.reread.map(clamp) };
    }
    // A reading that ends long before the utterance's audio, whichever decode it came from: the rest
    // is decoded on its own. (The rule above compares with what earlier decodes heard; a long
    // reading's speculative final may have had no partial decode after it.)
    const lastWord = d.tentative.at(-1) ?? this.committed.at(-1);
    if (!restAsked && lastWord && audio.length / this.rate - Math.max(d.lastEnd, lastWord.end) >= UNREAD_TAIL_S) d = await this.decodeRest(audio, d, p.finalBeamSize);
    const done = this.revisedDone();
    // A final-settings decode of the whole buffer read the buffer's committed words again, with the
    // audio after them: its reading replaces theirs (unless it read less than they say, repeats
    // itself more than they do, or the buffer was cut after it).
    const reread = textLength(d.reread) - textLength(d.tentative) >= SKIP_RATIO * textLength(this.committed) && repeatsNoMore(d.reread, [...this.committed, ...d.tentative]);
    if (p.reviseCommitted && !d.partial && d.bufferStart === this.bufferStart && reread) return this.view([], d, false, [...done, ...d.reread]);
    return this.view(d.tentative, d, false, [...done, ...this.committed]);
  }

  /**
   * The final of an utterance cut after `onQuiet`: the committed words that end inside it (words
   * committed after the quiet decode, past the cut, are heard again by the next piece).
   */
  private quietFinal(audio: Float32Array): StreamView | null {
    const end = audio.length / this.rate;
    if (this.quiet === null || end < this.quiet.wordEnd || end > this.quiet.d.audioEnd / this.rate) return null;
    const { d } = this.quiet;
    this.inflight?.abort.abort();
    this.stats.finalReused = true;
    const inside = (w: WordTiming) => w.end <= end;
    this.dropUnsettledRevisions();
    return this.view([], { ...d, audioEnd: audio.length }, false, [...this.revisedDone(), ...this.committed].filter(inside));
  }

  /** A decode asked now would be prompted before the earlier utterances are recognized (`contextPending`). */
  private provisional(): boolean {
    return (this.opts.contextPending?.() ?? null) !== null;
  }

  private async decodeBuffer(audio: Float32Array, partial: boolean, beamSize: number, speculative = false, signal?: AbortSignal, promptAsked = true): Promise<Decoded> {
    const prompt = promptAsked && this.promptlessFrom !== this.bufferStart;
    const buffer = audio.subarray(Math.min(this.bufferStart, audio.length));
    const previousText = prompt ? this.promptText() : "";
    const seconds = buffer.length / this.rate;
    this.countDecode(seconds);
    const asked = this.now();
    const offset = this.bufferStart / this.rate;
    const leadable = prompt && offset === 0 && this.done.length === 0;
    const provisional = prompt && this.provisional();
    const r = await this.opts.decode({ audio: buffer, offset, previousText, partial, ...(partial ? {} : { beamSize }), ...(speculative ? { speculative } : {}), ...(leadable ? { leadable } : {}) }, signal);
    const decodeSeconds = (this.now() - asked) / 1000;
    const words = heardWords(r, offset);
    // Fewer words and fewer letters and digits than the committed words it should repeat (a number
    // written in fewer words is not a skip).
    const before = this.beforeBuffer();
    const reread = afterReread(words, before, []);
    // A decode that wrote its prompt out again read none of its audio: this buffer's decodes go
    // unprompted from now on, this one first.
    if (prompt && copiesFrom(reread, this.revisedDone().filter((w) => w.end <= offset + 0.01))) {
      this.stats.promptCopies++;
      this.promptlessFrom = this.bufferStart;
      return this.decodeBuffer(audio, partial, beamSize, speculative, signal, false);
    }
    const lastEnd = words.at(-1)?.end ?? offset;
    const skipped = (words.length < this.committed.length && textLength(words) < SKIP_RATIO * textLength(this.committed)) || lastEnd < this.heardUntil - STOPPED_EARLY_S;
    this.heardUntil = Math.max(this.heardUntil, lastEnd);
    const tentative = afterCommitted(reread, this.committed);
    const decoded: Decoded = { audioEnd: audio.length, tentative, reread, bufferStart: this.bufferStart, language: r.language, confidence: r.confidence, partial, seconds: decodeSeconds, skipped, lastEnd, provisional, prompted: previousText !== "" };
    this.latest = decoded;
    return decoded;
  }

  /**
   * A final-settings decode `d` whose words stop early (Whisper ended its window with a timestamp
   * long before its audio ends, and the rest went unread), with the audio after its last word (and
   * the committed words') decoded on its own: prompted with the text so far, from `CUT_OVERLAP_S`
   * before that word's end; what it re-reads of the words before is left out, as after a cut.
   */
  private async decodeRest(audio: Float32Array, d: Decoded, beamSize: number): Promise<Decoded> {
    const said = [...this.committed, ...d.tentative];
    const fromS = Math.max(d.lastEnd, said.at(-1)?.end ?? 0);
    const from = Math.max(this.bufferStart, Math.round(Math.max(0, fromS - CUT_OVERLAP_S) * this.rate));
    if (audio.length - from < STOPPED_EARLY_S * this.rate) return d;
    const rest = audio.subarray(from);
    const offset = from / this.rate;
    const previousText = [this.promptText(), ...said.map((w) => w.word)].join(" ").trim();
    this.countDecode(rest.length / this.rate);
    this.stats.continued++;
    const asked = this.now();
    const r = await this.opts.decode({ audio: rest, offset, previousText, partial: false, beamSize });
    const words = heardWords(r, offset);
    const more = afterReread(words, said.filter((w) => w.end > offset + 0.01), []);
    const seconds = d.seconds + (this.now() - asked) / 1000;
    if (more.length === 0) return { ...d, seconds };
    return { ...d, tentative: [...d.tentative, ...more], reread: [...d.reread, ...more], lastEnd: more.at(-1)!.end, skipped: false, seconds };
  }

  /** One more decode of `seconds` of audio in `stats`. */
  private countDecode(seconds: number): void {
    this.stats.decodes++;
    this.stats.decodedSeconds += seconds;
    this.stats.maxDecodedSeconds = Math.max(this.stats.maxDecodedSeconds, seconds);
  }

  /** LocalAgreement: commits the prefix the last `agreement` decodes share. */
  private agree(d: Decoded): void {
    const n = Math.max(1, this.opts.profile.agreement);
    this.history.push(d.tentative);
    this.historyEnds.push(d.audioEnd / this.rate);
    if (this.history.length > n) {
      this.history = this.history.slice(-n);
      this.historyEnds = this.historyEnds.slice(-n);
    }
    if (this.history.length < n) return;
    if (d.audioEnd / this.rate < this.opts.profile.minCommitAudioS) return;
    // In each agreeing decode, the word ends the margin before that decode's audio does; and none
    // past the commit limit.
    const margin = this.opts.profile.commitMarginS;
    const settled = (at: number[]) => this.history.every((h, i) => at[i] === 0 || h[at[i]! - 1]!.end <= this.historyEnds[i]! - margin) && d.tentative[at.at(-1)! - 1]!.end <= this.commitLimit;
    // Nothing that would make the utterance's words loop (`loopFreeLength`): those are left to the
    // final. Unless the buffer is past its hard limit: a decode's cost stays bounded (and where the
    // profile revises committed words, those cut out of the buffer are read again).
    const past = (d.audioEnd - this.bufferStart) / this.rate > this.opts.profile.hardBufferS;
    const loopFree = past ? d.tentative.length : loopFreeLength(this.committedWords, d.tentative);
    const prefixes = agreedPrefixes(this.history);
    const at = prefixes.findLast((p) => settled(p) && p.at(-1)! <= loopFree);
    if ((prefixes.findLast(settled)?.at(-1) ?? 0) > (at?.at(-1) ?? 0)) this.stats.loopHolds++;
    if (at === undefined) return;
    const agreed = at.at(-1)!;
    // The newest decode's spelling and timings are kept.
    this.committed.push(...d.tentative.slice(0, agreed));
    this.history = this.history.map((h, i) => h.slice(at[i]));
    d.tentative = d.tentative.slice(agreed);
  }

  /** Moves committed words out of a buffer grown past its limit (`audio`: the utterance so far). */
  private cut(audio: Float32Array): void {
    const p = this.opts.profile;
    const bufferS = ((this.latest?.audioEnd ?? 0) - this.bufferStart) / this.rate;
    if (bufferS <= p.maxBufferS || this.committed.length === 0) return;
    let at = this.committed.length - 1;
    while (at >= 0 && !this.endsSpan(at)) at--;
    if (at < 0 && bufferS > p.hardBufferS) at = this.committed.length - 1;
    if (at >= 0) this.cutAfter(at, audio);
  }

  /** Committed word `i` closes a sentence or a timed segment (a gap before the next word). */
  private endsSpan(i: number): boolean {
    const w = this.committed[i]!;
    const next = this.committed[i + 1] ?? this.history[this.history.length - 1]?.[0];
    return SENTENCE_END.test(w.word) || (next !== undefined && next.start - w.end > 0.01);
  }

  /** Moves the committed words up to index `at` out of the buffer. */
  private cutAfter(at: number, audio: Float32Array): void {
    const from = this.done.length;
    const start = this.bufferStart;
    const previousText = this.promptText();
    const moved = this.committed.splice(0, at + 1);
    this.done.push(...moved);
    const last = moved[moved.length - 1]!;
    const next = this.committed[0] ?? this.history[this.history.length - 1]?.[0];
    const cutS = next !== undefined ? Math.max(last.end, Math.min(next.start, last.end + 0.1)) : last.end;
    // The buffer starts a little before the cut: word times are estimates, and a buffer starting
    // late would lose the start of the next word. What the decodes re-read of the words before the
    // cut is left out (`beforeBuffer`, `afterReread`).
    this.bufferStart = Math.max(this.bufferStart, Math.round(Math.max(0, cutS - CUT_OVERLAP_S) * this.rate));
    this.stats.cuts++;
    const span = { from: this.lastCutS, to: cutS };
    this.lastCutS = cutS;
    // A revision is a decode like the others: no longer than the hard buffer limit plus an interval.
    const p = this.opts.profile;
    const longest = start / this.rate + p.hardBufferS + p.partialIntervalMs / 1000;
    if (p.reviseCommitted) this.revise(from, moved, start, Math.round(Math.max(cutS, Math.min(cutS + REVISION_TAIL_S, longest)) * this.rate), span, previousText);
  }

  /** The prompt of a decode of the buffer: the context, then the committed words before it (as revised). */
  private promptText(): string {
    const context = typeof this.opts.context === "function" ? this.opts.context() : (this.opts.context ?? "");
    return [context, ...this.revisedDone().map((w) => w.word)].join(" ").trim();
  }

  /**
   * Decodes the audio of committed words that leave the buffer again, with the final settings and
   * the prompt they had (`moved`, which are `done[from…]`): the audio between the cuts before and
   * after them (`span`, utterance seconds), from the buffer's start (`start`, samples: 0.3 s before
   * the earlier cut) to `REVISION_TAIL_S` past the later one (`due`), so that no word at either cut
   * is heard cut off. It starts once the utterance reaches `due`. The decode's words whose middle
   * lies in the span (an edge moved by a word where the text says so: `readingOf`) replace `moved`
   * in the final if they have about as much text and repeat themselves no more (`repeatsNoMore`).
   * It runs beside the partial decodes, queued after them (`background`); a more urgent decode
   * suspends it where the engine can (`revisionsYield`), else a pause's speculative final stops it,
   * and it starts again once that decode has returned. The final uses it if it has returned by the
   * time the final is asked for. It is decoded without fallback (`noFallback`): a decode that fails
   * the engine's checks leaves the committed words as they are.
   */
  private revise(from: number, moved: WordTiming[], start: number, due: number, span: { from: number; to: number }, previousText: string): void {
    const offset = start / this.rate;
    const revision: Revision = { from, count: moved.length, words: null, settled: false, attempt: null, due, start: () => {}, waited: false, returned: Promise.resolve() };
    const middle = (w: WordTiming) => (w.start + w.end) / 2;
    const use = (r: TranscribeResult) => {
      const read = readingOf(heardWords(r, offset), (w) => middle(w) >= span.from && middle(w) < span.to, moved);
      const [n, c] = [textLength(read), textLength(moved)];
      if (n >= SKIP_RATIO * c && SKIP_RATIO * n <= c && repeatsNoMore(read, moved) && !copiesFrom(read, this.done.slice(0, from))) {
        revision.words = read;
        this.stats.revised++;
      }
    };
    revision.start = (utterance) => {
      const audio = utterance.subarray(start, Math.min(utterance.length, due));
      const req = { audio, offset, previousText, partial: false, background: true, beamSize: this.opts.profile.finalBeamSize };
      const attempt = (revision.attempt = new AbortController());
      revision.waited = false;
      this.countDecode(audio.length / this.rate);
      revision.returned = this.opts.decode(req, attempt.signal).then(
        (r) => {
          if (attempt.signal.aborted) return;
          use(r);
          revision.settled = true;
        },
        () => {
          if (!attempt.signal.aborted) revision.settled = true; // failed: the committed words stay
        },
      );
    };
    this.revisions.push(revision);
  }

  /** A pause's speculative final goes first: revisions running are stopped, to start again once it has returned. */
  private pauseRevisions(): void {
    for (const r of this.revisions) {
      if (r.settled || r.attempt === null) continue;
      r.attempt.abort();
      r.attempt = null;
    }
  }

  /** Starts the revisions that are due (`audio`: the utterance so far) or that a pause stopped. */
  private startRevisions(audio: Float32Array): void {
    if (this.finished) return;
    for (const r of this.revisions) if (!r.settled && r.attempt === null && audio.length >= r.due) r.start(audio);
  }

  /** Revisions still running are no longer wanted (the final is being made without them). */
  private dropUnsettledRevisions(): void {
    for (const r of this.revisions) {
      if (r.settled) continue;
      r.attempt?.abort();
      r.attempt = null;
      r.settled = true;
    }
  }

  /** The committed words before the buffer, each revised span as its revision read it. */
  private revisedDone(): WordTiming[] {
    const out: WordTiming[] = [];
    let i = 0;
    for (const r of this.revisions) {
      out.push(...this.done.slice(i, r.from), ...(r.words ?? this.done.slice(r.from, r.from + r.count)));
      i = r.from + r.count;
    }
    out.push(...this.done.slice(i));
    return out;
  }

  /** The words before the buffer that end inside it (see `cut`): a decode of the buffer may repeat them. */
  private beforeBuffer(): WordTiming[] {
    const from = this.bufferStart / this.rate + 0.01;
    let i = this.done.length;
    while (i > 0 && this.done[i - 1]!.end > from) i--;
    return this.done.slice(i);
  }

  /** `committed`: the final's words before `tentative` (default: the committed words, as every partial shows them). */
  private view(tentative: WordTiming[], d: Decoded, speculative = false, committed = this.committedWords): StreamView {
    const words = [...committed, ...tentative];
    return {
      committed,
      tentative,
      text: words.map((w) => w.word).join(" "),
      words,
      language: d.language,
      confidence: d.confidence,
      end: d.audioEnd / this.rate,
      speculative,
      transcribed: speculative ? Math.min(d.audioEnd / this.rate, this.commitLimit) : (committed.at(-1)?.end ?? 0),
      seconds: d.seconds,
    };
  }
}
