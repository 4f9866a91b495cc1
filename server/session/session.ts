/**
 * One live session: the state machine between the client's audio and the server's messages,
 * independent of sockets. A socket attaches (first connection or resume) and detaches; the session
 * survives a drop for the reconnect window.
 *
 *   recording ──stop_recording / silence / max duration / window over──▶ stopping ──▶ ended
 *
 * Audio path: bytes → ack ledger (resume dedup) → recording + front end (VAD utterances) →
 * coordinator (partials, finals in utterance order per channel) → messages. Acknowledgments
 * cover only audio whose utterances are transcribed.
 */
import { join } from "node:path";
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import type { TranscribeResult } from "../../workers/engines/types.ts";
import { NoCapacityError, type InferenceCoordinator, type PublicModel } from "../../workers/coordinator/types.ts";
import type { SileroVad } from "../../workers/vad/silero.ts";
import { createAudioFrontend, type AudioFrontend, type FrontendEvent } from "../audio/frontend.ts";
import { bytesPerFrame, type AudioFormat } from "../audio/format.ts";
import type { Clock } from "../clock.ts";
import type { CallbackDispatcher } from "../delivery/callbacks.ts";
import type { Logger } from "../log.ts";
import type { AppliedOptions } from "../options/defaults.ts";
import { RESUME_WINDOW_MS, SILENCE_TIMEOUT_MS } from "../sessions/limits.ts";
import type { Account, SessionRecord, Store } from "../store/types.ts";
import { createAckLedger, type AckLedger } from "./ledger.ts";
import { flagOf, MessageFactory, round3, type ServerMessage } from "./messages.ts";
import type { PersistedSession } from "./persist.ts";
import { createSessionRecording, type SessionRecording } from "./recording.ts";
import { previousText, sessionVocabulary } from "./context.ts";
import { buildResult, buildTranscription } from "./result.ts";
import { RetainedBytes } from "./retained.ts";
import { streamingProfile, UtteranceStream, type StreamDecodeRequest, type StreamingProfile, type StreamView } from "./streaming.ts";

/** Where a session's messages go while a socket is attached. */
export interface SessionSink {
  send(message: ServerMessage): void;
  close(code: number, reason: string): void;
}

/** How long a final transcription waits for inference capacity before its utterance is reported failed. */
const FINAL_CAPACITY_WAIT_MS = 120_000;

export interface LiveSessionDeps {
  store: Store;
  clock: Clock;
  coordinator: InferenceCoordinator;
  log: Logger;
  recordingsDir: string;
  vad: SileroVad;
  callbacks: CallbackDispatcher | null;
  /** Called once, when the session has ended. */
  onEnded?: (sessionId: string) => void;
}

export type StopCause = "stop_recording" | "silence" | "max_duration" | "disconnected";
export type SessionPhase = "recording" | "stopping" | "ended";

/** Margin before a detected speech start that may belong to its utterance (pre-roll plus padding). */
const OPEN_UTTERANCE_MARGIN_S = 0.5;
/** Audio replayed before the untranscribed point after a restart, so the VAD is warm again there. */
const RESTART_WARMUP_S = 2;
/** Duration of one VAD window (512 samples at 16 kHz). */
const VAD_FRAME_S = 0.032;
/** Essential messages kept for a detached socket (delivered on reconnect). */
const MAX_HELD_MESSAGES = 10_000;

interface PendingFinal {
  start: number;
  done: boolean;
}

export class LiveSession {
  readonly id: string;
  private phase: SessionPhase = "recording";
  private sink: SessionSink | null = null;
  private held: ServerMessage[] = [];
  /**
   * Final transcripts sent after the earliest point the client may resume from: a dropped connection
   * may have lost them in flight, so a resume sends them again (same `data.id`; clients keep one per id).
   */
  private unconfirmedFinals: ServerMessage[] = [];
  private detachedAt: number | null = null;
  private lastAudioAt: number;
  private attachedOnce = false;
  private readonly messages: MessageFactory;
  private readonly log: Logger;

  /** Audio work in arrival order. */
  private chain: Promise<void> = Promise.resolve();
  /** Per channel: final emission in utterance order. */
  private finalChains: Promise<void>[];
  private readonly pendingFinals = new Set<PendingFinal>();
  /** Per channel: start (s, session time) of an utterance not yet final, or null. */
  private readonly openStart: (number | null)[];
  private readonly finalized = new Set<string>();
  /** Open utterances decoded as they grow (partials wanted), by utterance key. */
  private readonly streams = new Map<string, { stream: UtteranceStream; seq: number }>();
  private readonly streaming: StreamingProfile;
  private readonly utterances: Utterance[] = [];
  private transcriptionTimeS = 0;
  private endedPromise: Promise<void> | null = null;

  private constructor(
    private readonly deps: LiveSessionDeps,
    private record: SessionRecord,
    private readonly account: Account,
    readonly options: AppliedOptions,
    readonly format: AudioFormat,
    private readonly frontend: AudioFrontend,
    private readonly ledger: AckLedger,
    private readonly retained: RetainedBytes,
    private readonly recording: SessionRecording | null,
    /** Absolute stream offset of the ledger's byte 0 (non-zero after a restart). */
    private readonly ledgerBase: number,
    /** Absolute stream offset of the front end's byte 0, and its time in seconds. */
    private readonly frontendBase: { byte: number; seconds: number },
    /** Stream offset of the first audio byte (WAV header length). */
    private headerBytes: number,
    /** Utterance index offset per channel (continues numbering after a restart). */
    private readonly indexBase: number[],
  ) {
    this.id = record.id;
    this.messages = new MessageFactory(record.id, () => deps.clock.now());
    this.log = deps.log.child({ session_id: record.id });
    this.lastAudioAt = deps.clock.now();
    this.finalChains = Array.from({ length: format.channels }, () => Promise.resolve());
    this.openStart = Array.from({ length: format.channels }, () => null);
    this.streaming = streamingProfile(options.profile);
  }

  /** Builds the session of a stored record; throws on an unusable audio format. */
  static async open(deps: LiveSessionDeps, record: SessionRecord, account: Account, restored?: PersistedSession): Promise<LiveSession> {
    const options = record.appliedOptions as AppliedOptions;
    const format: AudioFormat = {
      encoding: options.encoding,
      bitDepth: options.bit_depth as AudioFormat["bitDepth"],
      sampleRate: options.sample_rate,
      channels: options.channels,
    };
    const frontend = await createAudioFrontend({
      format,
      vad: deps.vad,
      endpointer: {
        endpointing: options.endpointing,
        maxDurationWithoutEndpointing: options.maximum_duration_without_endpointing,
        partialIntervalMs: options.messages_config.receive_partial_transcripts || record.appliedOptions.callback ? streamingProfile(options.profile).partialIntervalMs : 0,
        partialOnPause: true,
      },
    });
    const frame = bytesPerFrame(format);
    const ledger = createAckLedger({
      alignBytes: 1,
      confirmAfterBytes: 30 * format.sampleRate * frame,
      maxRetainBytes: 120 * format.sampleRate * frame,
      onWarning: (m) => deps.log.warn("ack ledger", { session_id: record.id, detail: m }),
    });
    const recording = record.recordAudio
      ? createSessionRecording(format, join(deps.recordingsDir, `${record.id}.flac`), { resume: !!restored })
      : null;

    if (!restored) {
      return new LiveSession(deps, record, account, options, format, frontend, ledger, new RetainedBytes(0), recording, 0, { byte: 0, seconds: 0 }, 0, new Array(format.channels).fill(0));
    }
    // Restart: rebuild the ledger over the persisted tail, then replay the untranscribed audio.
    const base = restored.tailStart;
    ledger.accept(restored.tail);
    for (const c of restored.candidates) if (c > base) ledger.nextAck(c - base, { force: true });
    const retained = new RetainedBytes(base);
    retained.append(restored.tail);
    const session = new LiveSession(deps, record, account, options, format, frontend, ledger, retained, recording, base, { byte: restored.replayFrom, seconds: restored.replayFromSeconds }, restored.headerBytes, restored.indexBase);
    session.attachedOnce = true;
    session.utterances.push(...restored.utterances);
    session.transcriptionTimeS = restored.transcriptionTimeS;
    session.lastFinalEnd = restored.lastFinalEnd;
    session.suppressBefore = restored.suppressBefore;
    // What the client may not have received from the previous holder: sent on the first attach.
    session.held.push(...(restored.held ?? []));
    session.unconfirmedFinals.push(...(restored.unconfirmed ?? []));
    const replay = restored.tail.subarray(restored.replayFrom - base);
    session.enqueue(() => session.process(replay));
    return session;
  }

  get currentPhase(): SessionPhase {
    return this.phase;
  }

  get attached(): boolean {
    return this.sink !== null;
  }

  /** Resolves once the session has ended (end_session sent, result stored). */
  ended(): Promise<void> {
    return this.endedPromise ?? this.chain;
  }

  /** A socket connects: the first one starts the recording, later ones resume. */
  attach(sink: SessionSink): void {
    if (this.sink) this.sink.close(4000, "superseded by a new connection");
    this.sink = sink;
    this.detachedAt = null;
    this.lastAudioAt = this.deps.clock.now();
    if (!this.attachedOnce) {
      this.attachedOnce = true;
      const now = this.deps.clock.now();
      this.save({ status: "processing", connectedAt: now, updatedAt: now });
      this.emit(this.messages.startSession());
      this.emit(this.messages.startRecording());
    } else {
      if (this.phase === "recording") this.ledger.beginResume();
      const held = this.held;
      this.held = [];
      for (const m of this.unconfirmedFinals) if (!held.includes(m)) sink.send(m);
      for (const m of held) sink.send(m);
    }
    if (this.phase === "ended") sink.close(1000, "session ended");
  }

  /** The socket went away (not closed by the session): the reconnect window starts. */
  detach(sink: SessionSink): void {
    if (this.sink !== sink) return;
    this.sink = null;
    this.detachedAt = this.deps.clock.now();
  }

  /** Audio bytes from the client (binary frame or decoded `audio_chunk`). */
  audio(bytes: Uint8Array): void {
    if (this.phase !== "recording") {
      this.error("audio received after stop_recording", "recording_stopped");
      return;
    }
    this.lastAudioAt = this.deps.clock.now();
    const fresh = this.ledger.accept(bytes);
    if (fresh.length > 0) this.accept(fresh);
  }

  /** Sends an `error` message (when enabled); the session goes on. */
  error(message: string, code = "bad_request"): void {
    this.emit(this.messages.error(message, code));
  }

  /** Ends the input: transcribes what is left, sends the closing messages and closes with 1000. */
  stop(cause: StopCause): void {
    if (this.phase !== "recording") {
      if (cause === "stop_recording") this.error("recording already stopped", "recording_stopped");
      return;
    }
    this.phase = "stopping";
    this.log.info("recording stopped", { cause });
    const rest = this.ledger.endResume();
    if (rest.length > 0) this.accept(rest);
    // Acknowledged once the audio received before it is decoded, so its duration is exact.
    this.enqueue(async () => {
      this.emit(this.messages.stopRecordingAck(this.totalDuration(), this.totalDuration() - this.transcribedSeconds()));
    });
    this.endedPromise = this.enqueue(() => this.finish());
  }

  /** Applies the time windows: silence, reconnect window. */
  tick(): void {
    const now = this.deps.clock.now();
    if (this.phase !== "recording") return;
    if (this.sink === null && this.detachedAt !== null && now - this.detachedAt >= RESUME_WINDOW_MS) {
      this.stop("disconnected");
    } else if (now - this.lastAudioAt >= SILENCE_TIMEOUT_MS) {
      this.stop("silence");
    }
  }

  /** Fails the session at once (e.g. an option the model refuses). */
  async fail(code: string, message: string, closeReason: string): Promise<void> {
    if (this.phase === "ended") return;
    this.phase = "ended";
    const now = this.deps.clock.now();
    const saved = this.save({ status: "error", error: { code, message }, endedAt: now, updatedAt: now });
    await this.recording?.abort();
    await saved;
    this.frontend.close();
    this.sink?.close(1011, closeReason);
    this.sink = null;
    this.deps.onEnded?.(this.id);
  }

  /** State for a restarted process, once the audio received so far is processed. */
  async snapshot(): Promise<PersistedSession | null> {
    if (this.phase !== "recording") return null;
    await this.chain;
    await Promise.all(this.finalChains);
    const transcribed = this.transcribedSeconds();
    // On the VAD's frame grid (32 ms), so the replayed audio is scored in the same windows.
    const replayFromSeconds = Math.max(0, Math.floor((transcribed - RESTART_WARMUP_S) / VAD_FRAME_S) * VAD_FRAME_S);
    const replayFrom = Math.max(this.retained.start, this.absoluteOffsetAt(replayFromSeconds));
    const candidates = this.ledger.resumeCandidates.map((c) => c + this.ledgerBase);
    const tailStart = Math.min(candidates[0]!, replayFrom, this.retained.end);
    return {
      version: 1,
      received: this.retained.end,
      tailStart,
      tail: this.retained.slice(Math.max(tailStart, this.retained.start)),
      candidates,
      replayFrom,
      replayFromSeconds: this.secondsAt(replayFrom),
      suppressBefore: transcribed,
      headerBytes: this.headerBytes,
      utterances: this.utterances,
      indexBase: this.nextIndex.map((n, c) => Math.max(n, this.indexBase[c]!)),
      lastFinalEnd: this.lastFinalEnd,
      transcriptionTimeS: this.transcriptionTimeS,
      held: this.held,
      unconfirmed: this.unconfirmedFinals.filter((m) => !this.held.includes(m)),
    };
  }

  /**
   * Stops processing without ending the session (this gateway stops, or hands the session to another
   * one); closes the socket with `code` (1012 by default: the client reconnects).
   */
  async suspend(code = 1012, reason = "service restarting"): Promise<void> {
    this.phase = "ended";
    this.sink?.close(code, reason);
    this.sink = null;
    this.frontend.close();
    await this.recording?.suspend();
  }

  // ── audio path ────────────────────────────────────────────────────────────

  private lastFinalEnd: number[] = [];
  /** After a restart: events before this session time were already handled by the previous process. */
  private suppressBefore = 0;
  private nextIndex: number[] = [];

  private accept(fresh: Uint8Array): void {
    // The plan's maximum duration: audio past it is not taken, and the recording stops there.
    const limit = this.durationLimitBytes(fresh);
    const cut = limit - this.retained.end < fresh.length;
    if (cut) fresh = fresh.subarray(0, Math.max(0, limit - this.retained.end));
    const offset = this.retained.end;
    this.retained.append(fresh);
    this.recording?.write(fresh, offset);
    this.enqueue(() => this.process(fresh));
    if (cut && this.phase === "recording") this.stop("max_duration");
  }

  /** Stream offset at which the plan's maximum session duration is reached. */
  private durationLimitBytes(next: Uint8Array): number {
    if (this.retained.end === 0 && next.length >= 4 && next[0] === 0x52 && next[1] === 0x49 && next[2] === 0x46 && next[3] === 0x46) this.headerBytes = 44;
    return this.headerBytes + Math.floor(this.account.plan.maxSessionDurationS * this.format.sampleRate) * bytesPerFrame(this.format);
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(work).catch((e) => this.log.error("session audio path failed", { err: e }));
    return this.chain;
  }

  private async process(bytes: Uint8Array): Promise<void> {
    if (this.phase === "ended") return;
    const events = await this.frontend.push(bytes);
    if (this.frontendBase.byte === 0) this.headerBytes = this.frontend.byteOffsetAt(0);
    this.handle(events);
    this.updateAcks();
  }

  private handle(events: FrontendEvent[]): void {
    const t0 = this.frontendBase.seconds;
    for (const e of events) {
      if (e.type === "warning") {
        this.log.warn("audio stream warning", { detail: e });
        continue;
      }
      const c = e.channel;
      if (t0 + ("time" in e ? e.time : e.start) < this.suppressBefore - 1e-6 && e.type !== "utterance_final") continue;
      switch (e.type) {
        case "speech_start":
          if (this.openStart[c] == null) this.openStart[c] = Math.max(t0, t0 + e.time - OPEN_UTTERANCE_MARGIN_S);
          this.emit(this.messages.speech("speech_start", t0 + e.time, c));
          break;
        case "speech_end":
          this.emit(this.messages.speech("speech_end", t0 + e.time, c));
          break;
        case "utterance_partial":
          this.openStart[c] = t0 + e.start;
          this.partial(c, e.utteranceIndex, e.audio, t0 + e.start);
          break;
        case "utterance_final":
          this.openStart[c] = e.reason === "max_duration" ? t0 + e.end : null;
          this.final(c, e.utteranceIndex, e.audio, t0 + e.start, t0 + e.end);
          break;
      }
    }
  }

  private utteranceKey(channel: number, index: number): string {
    return `${channel}:${index + (this.indexBase[channel] ?? 0)}`;
  }

  /**
   * A growing utterance: its streaming policy decodes it (at most one decode at a time, the newest
   * audio next) and each decode yields a partial whose committed words never change.
   */
  private partial(channel: number, index: number, audio: Float32Array, start: number): void {
    const wanted = this.options.messages_config.receive_partial_transcripts || this.callbackFlag("receive_partial_transcripts");
    const key = this.utteranceKey(channel, index);
    if (!wanted || this.finalized.has(key)) return;
    let entry = this.streams.get(key);
    if (!entry) {
      const e: { stream: UtteranceStream; seq: number } = {
        seq: 0,
        stream: new UtteranceStream({
          profile: this.streaming,
          context: previousText(this.utterances, channel),
          decode: (req) => this.decodeForStream(channel, key, req, ++e.seq),
          onPartial: (v) => {
            if (this.finalized.has(key) || this.phase === "ended" || v.text === "") return;
            this.emit(this.messages.transcript(key, false, this.toUtterance(viewResult(v), channel, start, start + v.end)));
          },
        }),
      };
      entry = e;
      this.streams.set(key, entry);
    }
    entry.stream.partial(audio);
  }

  /** One decode of a streamed utterance: partials fail quietly (no capacity), finals wait and retry. */
  private async decodeForStream(channel: number, key: string, req: StreamDecodeRequest, seq: number): Promise<TranscribeResult> {
    const extra = { previousText: req.previousText, beamSize: req.beamSize };
    if (req.partial) return this.transcribe(channel, key, seq, req.audio, true, extra);
    const r = await this.transcribeWithRetry(channel, key, 1_000_000 + seq, req.audio, extra);
    if (!r) throw new Error("final transcription failed");
    return r;
  }

  private final(channel: number, index: number, audio: Float32Array, start: number, end: number): void {
    const key = this.utteranceKey(channel, index);
    this.nextIndex[channel] = Math.max(this.nextIndex[channel] ?? 0, index + 1 + (this.indexBase[channel] ?? 0));
    if (start < (this.lastFinalEnd[channel] ?? 0) - 0.05) return; // already transcribed before a restart
    const pending: PendingFinal = { start, done: false };
    this.pendingFinals.add(pending);
    const streamed = this.streams.get(key);
    this.streams.delete(key);
    // Streamed: the committed words plus the tail. Otherwise one decode of the whole utterance.
    const result = streamed
      ? streamed.stream.finish(audio).then(viewResult, () => null)
      : this.transcribeWithRetry(channel, key, 1_000_000, audio, { beamSize: this.streaming.finalBeamSize });
    this.finalChains[channel] = this.finalChains[channel]!.then(async () => {
      const r = await result;
      this.finalized.add(key);
      this.lastFinalEnd[channel] = end;
      if (r && r.text.trim() !== "" && this.phase !== "ended") {
        const utterance = this.toUtterance(r, channel, start, end);
        this.utterances.push(utterance);
        this.emit(this.messages.transcript(key, true, utterance));
      }
      pending.done = true;
      this.pendingFinals.delete(pending);
      this.updateAcks();
    });
  }

  /**
   * A final of an admitted session waits for inference capacity (a backlog is not a reason to drop an
   * utterance: admission refuses new sessions instead); only after FINAL_CAPACITY_WAIT_MS, or on any
   * other failure, is the utterance reported failed with an `error` message.
   */
  private async transcribeWithRetry(channel: number, key: string, seq: number, audio: Float32Array, extra: DecodeExtra = {}): Promise<TranscribeResult | null> {
    const deadline = Date.now() + FINAL_CAPACITY_WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.transcribe(channel, key, seq, audio, false, extra);
      } catch (e) {
        if (e instanceof NoCapacityError && Date.now() < deadline) {
          if (attempt === 5) this.log.warn("inference backlog: a final transcription is waiting for capacity", { utterance: key });
          await Bun.sleep(Math.min(1000, 50 * 2 ** attempt));
          continue;
        }
        this.log.error("transcription failed", { utterance: key, err: e });
        this.error(`transcription of utterance ${key} failed: ${(e as Error).message}`, "transcription_failed");
        return null;
      }
    }
  }

  private async transcribe(channel: number, key: string, seq: number, audio: Float32Array, partial: boolean, extra: DecodeExtra = {}): Promise<TranscribeResult> {
    const started = performance.now();
    const languages = this.options.language_config.languages;
    const vocabulary = sessionVocabulary(this.options);
    const previous = extra.previousText ?? previousText(this.utterances, channel);
    const r = await this.deps.coordinator.transcribe({
      sessionId: this.id,
      utteranceId: key,
      seq,
      model: this.options.model as PublicModel,
      request: {
        audio,
        partial,
        streamKey: `${this.id}/${key}`,
        languages: languages.length > 0 ? languages : undefined,
        ...(vocabulary.length > 0 ? { vocabulary } : {}),
        ...(previous !== "" ? { previousText: previous } : {}),
        ...(extra.beamSize !== undefined ? { beamSize: extra.beamSize } : {}),
      },
    });
    if (!partial) this.transcriptionTimeS += (performance.now() - started) / 1000;
    return r;
  }

  private toUtterance(r: TranscribeResult, channel: number, start: number, end: number): Utterance {
    const language = r.language || this.options.language_config.languages[0] || "";
    const text = r.text.trim();
    const words = r.words.length > 0 ? r.words : text !== "" ? [{ word: text, start: 0, end: end - start, confidence: r.confidence }] : [];
    return {
      start: round3(start),
      end: round3(end),
      confidence: round3(clamp01(r.confidence)),
      channel,
      words: words.map((w) => ({ word: w.word, start: round3(start + w.start), end: round3(start + w.end), confidence: round3(clamp01(w.confidence)) })),
      text,
      language,
    };
  }

  // ── acknowledgments ───────────────────────────────────────────────────────

  /** Seconds (session time) up to which every utterance is transcribed. */
  private transcribedSeconds(): number {
    let t = this.totalDuration();
    for (const s of this.openStart) if (s !== null) t = Math.min(t, s);
    for (const p of this.pendingFinals) t = Math.min(t, p.start);
    return Math.max(t, this.frontendBase.seconds);
  }

  private totalDuration(): number {
    return this.frontendBase.seconds + this.frontend.durationSeconds;
  }

  /** Absolute stream byte offset of session time `seconds`. */
  private absoluteOffsetAt(seconds: number): number {
    if (this.frontendBase.byte === 0) return this.frontend.byteOffsetAt(seconds);
    return this.frontendBase.byte + this.frontend.byteOffsetAt(Math.max(0, seconds - this.frontendBase.seconds));
  }

  private updateAcks(force = false): void {
    if (this.phase === "ended") return;
    const end = force ? this.retained.end : this.absoluteOffsetAt(this.transcribedSeconds());
    const ack = this.ledger.nextAck(end - this.ledgerBase, { force });
    if (!ack) return;
    const first = ack.byteRange[0] + this.ledgerBase;
    const last = ack.byteRange[1] + this.ledgerBase;
    const warm = this.absoluteOffsetAt(Math.max(0, this.transcribedSeconds() - RESTART_WARMUP_S));
    const earliestResume = this.ledger.resumeCandidates[0]! + this.ledgerBase;
    this.retained.trimTo(Math.min(earliestResume, warm));
    const confirmedUntil = this.secondsAt(earliestResume);
    this.unconfirmedFinals = this.unconfirmedFinals.filter((m) => m.type !== "transcript" || m.data.utterance.end > confirmedUntil);
    this.emit(this.messages.audioChunkAck([first, last], [this.msAt(first), this.msAt(last)]));
  }

  /** Session time in seconds of an absolute stream offset. */
  private secondsAt(byte: number): number {
    return Math.max(0, byte - this.headerBytes) / (this.format.sampleRate * bytesPerFrame(this.format));
  }

  private msAt(byte: number): number {
    const payload = Math.max(0, byte - this.headerBytes);
    return Math.round((payload * 1000) / (this.format.sampleRate * bytesPerFrame(this.format)));
  }

  // ── the end ───────────────────────────────────────────────────────────────

  private async finish(): Promise<void> {
    if (this.phase === "ended") return;
    const events = await this.frontend.flush();
    this.handle(events);
    await Promise.all(this.finalChains);
    await Promise.all(this.finalChains); // finals queued by the flush
    this.updateAcks(true);
    const duration = this.totalDuration();
    this.emit(this.messages.endRecording(duration));
    const result = buildResult(this.utterances, { audioDurationS: duration, channels: this.format.channels, transcriptionTimeS: this.transcriptionTimeS });
    this.emit(this.messages.postTranscript(buildTranscription(this.utterances)));
    this.emit(this.messages.postFinalTranscript(result));

    let recordingPath: string | null = null;
    if (this.recording) {
      try {
        recordingPath = (await this.recording.finish()).path;
      } catch (e) {
        this.log.error("recording failed", { err: e });
      }
    }
    const now = this.deps.clock.now();
    // The final state is stored before the socket closes, so a client reading the session after the
    // close sees it done.
    await Promise.all([
      this.save({ status: "done", result, endedAt: now, updatedAt: now, audioDurationS: round3(duration), recordingPath, resumeState: null }),
      this.deps.store.consumeCredits(this.record.accountId, duration).catch((e) => this.log.error("credits not updated", { err: e })),
    ]);
    this.emit(this.messages.endSession());
    this.phase = "ended";
    this.frontend.close();
    this.sink?.close(1000, "session ended");
    this.sink = null;
    this.deps.onEnded?.(this.id);
  }

  /** Writes a patch of this session's record; failures are logged (the audio path never waits on them). */
  private save(patch: Parameters<LiveSessionDeps["store"]["updateSession"]>[1]): Promise<void> {
    return this.deps.store.updateSession(this.id, patch).catch((e) => this.log.error("session record not updated", { err: e }));
  }

  // ── delivery ──────────────────────────────────────────────────────────────

  private callbackFlag(flag: keyof NonNullable<AppliedOptions["messages_config"]>): boolean {
    const cfg = this.options.callback_config as Record<string, unknown> | undefined;
    return this.options.callback === true && !!cfg && cfg[flag] === true;
  }

  private emit(message: ServerMessage): void {
    const flag = flagOf(message);
    const cfg = this.options.callback_config;
    if (this.deps.callbacks && this.callbackFlag(flag) && cfg?.url) {
      this.deps.callbacks.enqueue(this.id, { url: cfg.url, secret: this.account.callbackSecret, message: message as never });
    }
    if (message.type === "start_session" || !this.options.messages_config[flag]) return;
    if (message.type === "transcript" && message.data.is_final) this.unconfirmedFinals.push(message);
    if (this.sink) this.sink.send(message);
    else if (this.phase !== "ended" && this.held.length < MAX_HELD_MESSAGES && !(message.type === "transcript" && !message.data.is_final)) {
      this.held.push(message);
    }
  }
}

/** Options of one decode besides the audio: the prompt text and the beam size of a final. */
interface DecodeExtra {
  previousText?: string;
  beamSize?: number;
}

/** A streamed view as an engine result (times from the utterance start). */
function viewResult(v: StreamView): TranscribeResult {
  return { text: v.text, language: v.language, confidence: v.confidence, words: v.words, noSpeech: v.text === "" };
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
