/**
 * Recognition of one session: front-end events in, utterances out. Speech events become messages;
 * when someone wants partials, a growing utterance goes through the streaming policy (streaming.ts:
 * one decode in flight per utterance, committed words that never change, the final as committed
 * words plus tail); otherwise the final is one decode of the whole utterance;
 * finals are transcribed with a wait for inference capacity and delivered in utterance order per
 * channel, after the enrichment stage. Talks to inference only through the coordinator interface.
 *
 * It also knows which audio is not transcribed yet, in two senses: audio a restart must decode again
 * (open utterances and finals not yet delivered: `openFrom`, the replay point) and audio not decoded
 * at all yet (`ackableFrom`: an open or ending utterance counts as transcribed up to the end of its
 * last committed word, or of its speculative final once that decode has returned, a final as soon
 * as it is recognized), which bounds the acknowledgments.
 */
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { FRONTEND_SAMPLE_RATE, type FrontendEvent } from "../audio/frontend.ts";
import { previousText } from "./context.ts";
import { LanguageEvidence } from "./language.ts";
import { decodeForStream, leadOf, transcribeWithRetry, type DecodeJobs } from "./decode-jobs.ts";
import { LeadAudio } from "./lead.ts";
import { type HeldFinal, NumberHold } from "../enrich/hold.ts";
import type { SessionMessage } from "./messages.ts";
import { streamingProfile, type StreamingProfile } from "./profiles.ts";
import type { StreamView } from "./stream-types.ts";
import { UtteranceStream } from "./streaming.ts";
import type { RecognitionState, TranscriberHost } from "./transcriber-host.ts";
import { toUtterance, viewResult, wordsFrom } from "./utterance.ts";

/** Margin before a detected speech start that may belong to its utterance (pre-roll plus padding). */
const OPEN_UTTERANCE_MARGIN_S = 0.5;

interface PendingFinal {
  channel: number;
  start: number;
  end: number;
  done: boolean;
  /** Session time (s) from which its audio is not transcribed yet (the end of its last committed word or speculative final, or `start`). */
  decodedUntil: number;
  /** Recognized (its text is known, delivered or not). */
  recognized: boolean;
  /** Resolves once its recognition has ended (recognized or failed). */
  recognition: Promise<void>;
}

export class Transcriber {
  /** Per channel: final emission in utterance order. */
  private finalChains: Promise<void>[];
  /**
   * Per channel: recognition of finals in utterance order. A final is decoded once the channel's
   * previous final is recognized, so the text it is prompted with does not depend on timing.
   */
  private recognitionChains: Promise<void>[];
  private readonly pendingFinals = new Set<PendingFinal>();
  /** Per channel: start (s, session time) of an utterance not yet final, or null. */
  private readonly openStart: (number | null)[];
  /** Per channel: the key of the open utterance once it has had a partial, or null. */
  private readonly openKey: (string | null)[];
  /**
   * By utterance key: session time (s) up to which it is transcribed while open: the end of its last
   * committed word (its final starts with those words unchanged) or of its latest speculative final.
   */
  private readonly transcribedUntil = new Map<string, number>();
  private readonly finalized = new Set<string>();
  /** Utterances decoded as they grow, by utterance key (while partials are wanted). */
  private readonly streams = new Map<string, { stream: UtteranceStream; seq: number }>();
  private readonly streaming: StreamingProfile;
  /** Final utterances delivered, in delivery order. */
  readonly utterances: Utterance[] = [];
  /** The message id (`data.id`) of each of `utterances`. */
  readonly finalIds: string[] = [];
  /** The latest finals detected (delivered or not): channel, absolute utterance index, start (s). */
  private readonly recentFinals: { channel: number; index: number; start: number }[] = [];
  /**
   * Seconds spent recognizing the finals (`transcription_time`): per final, request to result of
   * the decodes its text comes from (a streamed final's reused speculative or partial decode, or its
   * own decodes). Partial decodes before it, speculative decodes not used and aborted decodes are
   * not counted: they are the price of partials, not of the transcript.
   */
  transcriptionTimeS = 0;
  private lastFinalEnd: number[] = [];
  /**
   * Per channel: end (s) of the last final handled (delivered, or dropped as empty or failed). A
   * snapshot stores this, not `lastFinalEnd` (set at recognition): a final recognized but not yet
   * delivered is replayed and transcribed again by a restarted process.
   */
  private settledEnd: number[] = [];
  /** After a restart: events before this session time were already handled by the previous process. */
  private suppressBefore = 0;
  private nextIndex: number[] = [];
  /** Utterance index offset per channel (continues numbering after a restart). */
  private readonly indexBase: number[];
  /** Final utterances as recognized, before the add-ons rewrote them: the recognizer's context (a prompt of masks would teach it masks). */
  private readonly heard: Utterance[] = [];
  /** What this session's decode jobs are built from (`decode-jobs.ts`). */
  private readonly jobs: DecodeJobs;
  /** Finals ending inside a spoken number wait here for the rest of it (off with `turn_router`). */
  private readonly hold: NumberHold<PendingFinal> | null;
  /** Session time (s) up to which the front end has read the audio (all channels alike). */
  private audioEnd = 0;
  /** The latest recognized finals' audio: the lead of a short final (`lead.ts`). */
  private readonly leads = new LeadAudio();

  constructor(
    private readonly host: TranscriberHost,
    channels: number,
    restored?: RecognitionState,
  ) {
    this.finalChains = Array.from({ length: channels }, () => Promise.resolve());
    this.recognitionChains = Array.from({ length: channels }, () => Promise.resolve());
    this.openStart = Array.from({ length: channels }, () => null);
    this.openKey = Array.from({ length: channels }, () => null);
    this.indexBase = restored ? restored.indexBase : new Array(channels).fill(0);
    this.streaming = streamingProfile(host.options.profile);
    this.jobs = {
      host,
      heard: this.heard,
      language: new LanguageEvidence(),
      profile: this.streaming,
      lead: (channel, start) => this.leads.leadFor(channel, start, this.heard, this.unrecognizedBefore(channel, start).length > 0),
    };
    this.hold = host.options.turn_router ? null : new NumberHold<PendingFinal>((f) => this.enqueueExpiry(f));
    if (restored) {
      this.utterances.push(...restored.utterances);
      this.finalIds.push(...(restored.finalIds ?? restored.utterances.map(() => "")));
      this.heard.push(...restored.utterances);
      this.transcriptionTimeS = restored.transcriptionTimeS;
      this.lastFinalEnd = restored.lastFinalEnd;
      this.settledEnd = [...restored.lastFinalEnd];
      this.suppressBefore = restored.suppressBefore;
    }
  }

  /**
   * Handles front-end events; `t0` is the session time of the front end's start, `audioEnd` that up
   * to which it has read the audio (the number hold's clock).
   */
  handle(events: FrontendEvent[], t0: number, audioEnd?: number): void {
    const { messages } = this.host;
    for (const e of events) {
      if (e.type === "warning") {
        this.host.log.warn("audio stream warning", { detail: e });
        continue;
      }
      const c = e.channel;
      if (t0 + ("time" in e ? e.time : e.start) < this.suppressBefore - 1e-6 && e.type !== "utterance_final") continue;
      switch (e.type) {
        case "speech_start":
          if (this.openStart[c] == null) this.openStart[c] = Math.max(t0, t0 + e.time - OPEN_UTTERANCE_MARGIN_S);
          this.host.emit(messages.speech("speech_start", t0 + e.time, c));
          break;
        case "speech_end":
          this.host.emit(messages.speech("speech_end", t0 + e.time, c));
          break;
        case "utterance_partial":
          this.openStart[c] = t0 + e.start;
          this.openKey[c] = this.utteranceKey(c, e.utteranceIndex);
          this.partial(c, e.utteranceIndex, e.audio, t0 + e.start, e.pause, e.commitLimit === null ? undefined : e.commitLimit - e.start);
          break;
        case "utterance_final":
          this.openStart[c] = e.reason === "max_duration" || e.reason === "recognizer" ? t0 + e.end : null;
          this.openKey[c] = null;
          this.final(c, e.utteranceIndex, e.audio, t0 + e.start, t0 + e.end);
          break;
      }
    }
    if (audioEnd !== undefined) this.audioEnd = Math.max(this.audioEnd, audioEnd);
    this.advanceHold();
  }

  /**
   * Tells the number hold how far each channel's audio has gone, and where the utterance after a
   * held final starts (open, or waiting for its recognition), so it releases what cannot be joined.
   */
  private advanceHold(): void {
    const hold = this.hold;
    if (!hold) return;
    this.openStart.forEach((open, c) => {
      const end = hold.heldEnd(c);
      if (end === null) return;
      let next = open !== null && open >= end - 1e-6 ? open : null;
      for (const p of this.pendingFinals) if (p.channel === c && p.start >= end - 1e-6 && (next === null || p.start < next)) next = p.start;
      hold.advance(c, this.audioEnd, next);
    });
  }

  /** Earliest session time (s) of audio not transcribed yet: an open utterance or a final in flight; Infinity when none. */
  openFrom(): number {
    let t = Infinity;
    for (const s of this.openStart) if (s !== null) t = Math.min(t, s);
    for (const p of this.pendingFinals) t = Math.min(t, p.start);
    return t;
  }

  /**
   * Earliest session time (s) of audio not transcribed yet; Infinity when none. An open utterance
   * counts from the end of its last committed word or latest speculative final, whichever is later
   * (from its start without either), a final in flight likewise until it is recognized; a
   * recognized final (held for a number, or waiting for an earlier one's delivery) does not count.
   * At least `openFrom()`.
   */
  ackableFrom(): number {
    let t = Infinity;
    this.openStart.forEach((s, c) => {
      if (s === null) return;
      const key = this.openKey[c];
      const decoded = key === null ? undefined : this.transcribedUntil.get(key);
      t = Math.min(t, Math.max(s, decoded ?? s));
    });
    for (const p of this.pendingFinals) if (!p.recognized) t = Math.min(t, p.decodedUntil);
    return t;
  }

  /** Resolves once every final queued so far is delivered, those held for a number included. */
  async settled(): Promise<void> {
    await Promise.all(this.finalChains);
    for (const f of this.hold?.flush() ?? []) this.enqueueDelivery(f);
    await Promise.all(this.finalChains);
  }

  /** What a restarted process continues from, `transcribed` being the session time transcribed so far. */
  snapshot(transcribed: number): RecognitionState {
    return {
      suppressBefore: transcribed,
      utterances: this.utterances,
      finalIds: this.finalIds,
      indexBase: this.resumeIndexBase(transcribed),
      lastFinalEnd: [...this.settledEnd],
      transcriptionTimeS: this.transcriptionTimeS,
    };
  }

  /**
   * Per channel, the index the restarted front end's first utterance gets: the audio it replays from
   * `transcribed` on detects again the utterances that start there (finals in flight included), which
   * keep their index (and so their id).
   */
  private resumeIndexBase(transcribed: number): number[] {
    const base = this.indexBase.map((b, c) => Math.max(b, this.nextIndex[c] ?? 0));
    for (const f of this.recentFinals) if (f.start >= transcribed - 1e-6) base[f.channel] = Math.min(base[f.channel]!, f.index);
    return base;
  }

  private utteranceKey(channel: number, index: number): string {
    return `${channel}:${index + (this.indexBase[channel] ?? 0)}`;
  }

  /**
   * A growing utterance: its streaming policy decodes it (one decode at a time, the newest audio
   * next) and each decode yields a partial that starts with the committed words.
   */
  private partial(channel: number, index: number, audio: Float32Array, start: number, pause: boolean, commitLimit?: number): void {
    const key = this.utteranceKey(channel, index);
    if (!this.host.wants("receive_partial_transcripts") || this.finalized.has(key)) return;
    let entry = this.streams.get(key);
    if (!entry) {
      const e: { stream: UtteranceStream; seq: number } = {
        seq: 0,
        stream: new UtteranceStream({
          profile: this.streaming,
          sampleRate: FRONTEND_SAMPLE_RATE,
          // Read at each decode: the finals before this utterance may still be in recognition.
          context: () => previousText(this.heard, channel),
          contextPending: () => {
            const earlier = this.unrecognizedBefore(channel, start);
            return earlier.length === 0 ? null : Promise.all(earlier.map((p) => p.recognition));
          },
          decode: (req, signal) => decodeForStream(this.jobs, channel, key, start, req, ++e.seq, signal),
          onPartial: (v) => this.partialView(key, channel, start, v),
          revisionsYield: this.jobs.host.coordinator.suspendsBackground === true,
          holdPartialsMs: this.streaming.partialHoldMs,
          // Words heard, then none for the endpointing window while the VAD hears sound: cut in that gap.
          quietS: this.host.options.endpointing,
          onQuiet: (at) => this.host.cut(channel, index, start + at),
        }),
      };
      entry = e;
      this.streams.set(key, entry);
    }
    entry.stream.partial(audio, pause, commitLimit);
  }

  /** The channel's finals before `start` (session s) that are not recognized yet. */
  private unrecognizedBefore(channel: number, start: number): PendingFinal[] {
    return [...this.pendingFinals].filter((p) => p.channel === channel && p.start < start - 1e-6 && !p.recognized);
  }

  private partialView(key: string, channel: number, start: number, v: StreamView): void {
    const until = start + v.transcribed;
    if (until > (this.transcribedUntil.get(key) ?? start) && !this.finalized.has(key)) {
      this.transcribedUntil.set(key, until);
      this.host.transcribed();
    }
    const stale = () => this.finalized.has(key) || this.host.isEnded();
    if (stale() || v.text === "") return;
    this.hold?.heard(channel, start, v.text);
    const utterance = toUtterance(this.host.options, viewResult(v), channel, start, start + v.end);
    if (!this.host.enrichment.active) return this.deliver(key, false, utterance, []);
    void this.host.enrichment
      .partial(utterance, { id: key, channel })
      .then((x) => {
        if (!stale()) this.deliver(key, false, x.utterance, x.messages);
      })
      .catch(() => {});
  }


  private final(channel: number, index: number, audio: Float32Array, start: number, end: number): void {
    if (start < (this.lastFinalEnd[channel] ?? 0) - 0.05) {
      // Transcribed before a restart (replayed to warm the VAD up): its index was counted already, so
      // it takes none, and the utterances after it keep the ids of an uninterrupted run.
      this.streams.delete(this.utteranceKey(channel, index));
      this.transcribedUntil.delete(this.utteranceKey(channel, index));
      this.indexBase[channel] = (this.indexBase[channel] ?? 0) - 1;
      return;
    }
    const key = this.utteranceKey(channel, index);
    this.nextIndex[channel] = Math.max(this.nextIndex[channel] ?? 0, index + 1 + (this.indexBase[channel] ?? 0));
    this.recentFinals.push({ channel, index: index + (this.indexBase[channel] ?? 0), start });
    if (this.recentFinals.length > 64) this.recentFinals.shift();
    const pending: PendingFinal = { channel, start, end, done: false, decodedUntil: Math.max(start, this.transcribedUntil.get(key) ?? start), recognized: false, recognition: Promise.resolve() };
    this.pendingFinals.add(pending);
    const streamed = this.streams.get(key);
    this.streams.delete(key);
    // Streamed: the committed words plus the tail. Otherwise one decode of the whole utterance.
    const result = streamed
      ? streamed.stream.finish(audio).then((v) => {
          this.transcriptionTimeS += v.seconds;
          return viewResult(v);
        }, () => null)
      : this.recognitionChains[channel]!.then(async () => {
          const asked = performance.now();
          const lead = leadOf(this.jobs, channel, start, audio);
          const r = await transcribeWithRetry(this.jobs, channel, key, 1_000_000, audio, { beamSize: this.streaming.finalBeamSize, ...(lead ? { lead } : {}) });
          if (r) this.transcriptionTimeS += (performance.now() - asked) / 1000;
          return r;
        });
    pending.recognition = result.then(() => undefined, () => undefined);
    // What the channel has heard (the prompt of later decodes) grows in utterance order, at recognition
    // (a streamed final may be ready before the one of the utterance before it).
    const before = this.recognitionChains[channel]!;
    this.recognitionChains[channel] = before.then(() => result).then(
      (r) => {
        if (r && r.text.trim() !== "") this.heard.push(toUtterance(this.host.options, r, channel, start, end));
      },
      () => undefined,
    );
    // Recognized: its audio is transcribed (acknowledgments may pass it before it is delivered).
    void result.then(
      (r) => {
        this.transcribedUntil.delete(key);
        if (r === null) return; // failed: it counts once handled (reported, then settled)
        this.leads.heard(channel, start, end, audio, r.text, r.language);
        pending.recognized = true;
        this.host.transcribed();
      },
      () => undefined,
    );
    this.finalChains[channel] = this.finalChains[channel]!.then(async () => {
      const r = await result;
      this.finalized.add(key);
      this.lastFinalEnd[channel] = end;
      if (r && r.text.trim() !== "" && !this.host.isEnded()) {
        const recognized: HeldFinal<PendingFinal> = { id: key, utterance: toUtterance(this.host.options, r, channel, start, end), tokens: [pending], audio };
        for (const f of this.hold ? this.hold.offer(recognized) : [recognized]) await this.deliverFinal(f);
      } else this.settle([pending]);
      // Recognition may end long after its audio: the hold is judged on the audio seen by now.
      this.advanceHold();
    });
  }

  /** A final released by the number hold: delivered in its channel's order. */
  private enqueueDelivery(f: HeldFinal<PendingFinal>): void {
    const c = f.utterance.channel;
    this.finalChains[c] = this.finalChains[c]!.then(() => this.deliverFinal(f));
  }

  /** A hold that timed out: in the channel's order, the final is delivered unless a later final released it first. */
  private enqueueExpiry(f: HeldFinal<PendingFinal>): void {
    const c = f.utterance.channel;
    this.finalChains[c] = this.finalChains[c]!.then(() => {
      const back = this.hold?.expire(f);
      return back ? this.deliverFinal(back) : undefined;
    });
  }

  /** Enriches and delivers a final, then lets the acknowledgments move past the audio it covers. */
  private async deliverFinal(f: HeldFinal<PendingFinal>): Promise<void> {
    if (!this.host.isEnded()) {
      const c = f.utterance.channel;
      const last = this.utterances.findLast((u) => u.channel === c && u.words.length > 0);
      const recognized = last ? wordsFrom(f.utterance, last.words[last.words.length - 1]!.end) : f.utterance;
      const { utterance, messages } = this.host.enrichment.active
        ? await this.host.enrichment.final(recognized, { id: f.id, channel: c, ...(f.audio ? { audio: f.audio } : {}) })
        : { utterance: recognized, messages: [] };
      this.utterances.push(utterance);
      this.finalIds.push(f.id);
      this.deliver(f.id, true, utterance, messages);
    }
    this.settle(f.tokens ?? []);
  }

  private settle(pendings: PendingFinal[]): void {
    for (const p of pendings) {
      p.done = true;
      this.settledEnd[p.channel] = Math.max(this.settledEnd[p.channel] ?? 0, p.end);
      this.pendingFinals.delete(p);
    }
    this.host.transcribed();
  }

  /** Sends a transcript, then the messages the enrichment stage added to it. */
  private deliver(key: string, isFinal: boolean, utterance: Utterance, extra: SessionMessage[]): void {
    this.host.emit(this.host.messages.transcript(key, isFinal, utterance));
    for (const m of extra) this.host.emit(m);
  }
}
