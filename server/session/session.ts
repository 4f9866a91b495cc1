/**
 * One live session: the phase machine between the client's audio and the server's messages,
 * independent of sockets. A socket attaches (first connection or resume) and detaches; the session
 * survives a drop for the reconnect window.
 *
 *   recording ──stop_recording / silence / max duration / window over──▶ stopping ──▶ ended
 *
 * Audio path: bytes → acks (resume dedup) → intake (duration limit, recording) → front end (VAD
 * utterances) → transcriber (coordinator: partials, finals in utterance order per channel) →
 * enrichment → outlet (flags, socket, callbacks). Acknowledgments cover only transcribed audio: up
 * to the end of the last committed word of an utterance still being spoken (its start without one),
 * or of its speculative final once that has returned (before the endpointing window ends); a
 * restart still replays from the start of the earliest utterance not yet final, whose audio the
 * session keeps. Each arrow is its own module; this one only sequences them.
 */
import { join } from "node:path";
import type { InferenceCoordinator } from "../../workers/contract/types.ts";
import { createAudioFrontend, type AudioFrontend, type AudioFrontendOptions } from "../audio/frontend.ts";
import type { AudioFormat } from "../audio/format.ts";
import type { Clock } from "../clock.ts";
import type { CallbackDispatcher } from "../delivery/callbacks.ts";
import type { Logger } from "../log.ts";
import type { AppliedOptions } from "../options/defaults.ts";
import { RESUME_WINDOW_MS, SILENCE_TIMEOUT_MS } from "../session-records/limits.ts";
import type { Account, SessionRecord, Store } from "../store/types.ts";
import { SessionAcks } from "./acks.ts";
import { Checkpointer, type CheckpointCapture } from "./checkpoint.ts";
import { createEnrichers } from "../enrich/session.ts";
import { EnrichmentPipeline, type EnrichContext, type EnricherFactory } from "./enrich.ts";
import { sessionWriter, storeOutcome, type SaveSession } from "./finish.ts";
import { Intake } from "./intake.ts";
import { MessageFactory, type SessionMessage } from "./messages.ts";
import { Outlet, type SessionSink } from "./outlet.ts";
import type { PersistedSession } from "./persist.ts";
import { createSessionRecording, type SessionRecording } from "./recording-spool.ts";
import { buildResult, buildTranscription } from "./result.ts";
import { speechThresholds } from "../vad/endpointer.ts";
import { streamingProfile } from "./streaming.ts";
import { Transcriber } from "./transcriber.ts";
import { audioArrived, messageSent } from "../metrics/index.ts";

export type { SessionSink } from "./outlet.ts";

/** The voice activity detector the front end runs (loaded once by the composition root). */
export type Vad = AudioFrontendOptions["vad"];

export interface LiveSessionDeps {
  store: Store;
  clock: Clock;
  coordinator: InferenceCoordinator;
  log: Logger;
  recordingsDir: string;
  vad: Vad;
  callbacks: CallbackDispatcher | null;
  /** The enrichment stage's add-ons for a session (default: `createEnrichers`). */
  enrichers?: EnricherFactory;
  /** Called once, when the session has ended. */
  onEnded?: (sessionId: string) => void;
}

export type StopCause = "stop_recording" | "silence" | "max_duration" | "disconnected";
export type SessionPhase = "recording" | "stopping" | "ended";

/** The parts of a session that `open` builds before the session itself. */
interface Parts {
  messages: MessageFactory;
  log: Logger;
  enrichment: EnrichmentPipeline;
  frontend: AudioFrontend;
  acks: SessionAcks;
  recording: SessionRecording | null;
}

export class LiveSession {
  readonly id: string;
  private phase: SessionPhase = "recording";
  private detachedAt: number | null = null;
  private lastAudioAt: number;
  private attachedOnce = false;
  private readonly messages: MessageFactory;
  private readonly log: Logger;
  private readonly save: SaveSession;
  private readonly outlet: Outlet;
  private readonly enrichment: EnrichmentPipeline;
  private readonly frontend: AudioFrontend;
  private readonly acks: SessionAcks;
  private readonly recording: SessionRecording | null;
  private readonly transcriber: Transcriber;
  private readonly intake: Intake;
  /** Acks are sent once the checkpoint covering them is stored. */
  private readonly checkpoint: Checkpointer;

  /** Audio work in arrival order. */
  private chain: Promise<void> = Promise.resolve();
  private endedPromise: Promise<void> | null = null;

  private constructor(
    private readonly deps: LiveSessionDeps,
    private readonly record: SessionRecord,
    account: Account,
    readonly options: AppliedOptions,
    readonly format: AudioFormat,
    parts: Parts,
    restored: PersistedSession | undefined,
  ) {
    this.id = record.id;
    ({ messages: this.messages, log: this.log, enrichment: this.enrichment, frontend: this.frontend, acks: this.acks, recording: this.recording } = parts);
    this.lastAudioAt = deps.clock.now();
    this.save = sessionWriter(deps.store, record.id, this.log);
    this.outlet = new Outlet({
      sessionId: record.id,
      options,
      callbackSecret: account.callbackSecret,
      callbacks: deps.callbacks,
      isOpen: () => this.phase !== "ended",
    });
    this.intake = new Intake(this.acks, this.recording, format, account.plan.maxSessionDurationS);
    this.checkpoint = new Checkpointer(deps.store, record.id, this.log, () => this.captureCheckpoint(), (tailStart) => this.recording?.flush(tailStart), () => deps.clock.now());
    this.transcriber = new Transcriber(
      {
        id: record.id,
        options,
        coordinator: deps.coordinator,
        log: this.log,
        messages: this.messages,
        enrichment: this.enrichment,
        emit: (m) => this.emit(m),
        wants: (flag) => this.outlet.wants(flag),
        error: (message, code) => this.error(message, code),
        isEnded: () => this.phase === "ended",
        transcribed: () => this.updateAcks(),
      },
      format.channels,
      restored,
    );
  }

  /** Builds the session of a stored record; throws on an unusable audio format. */
  static async open(deps: LiveSessionDeps, record: SessionRecord, account: Account, restored?: PersistedSession): Promise<LiveSession> {
    const options = record.appliedOptions;
    const format: AudioFormat = {
      encoding: options.encoding,
      bitDepth: options.bit_depth,
      sampleRate: options.sample_rate,
      channels: options.channels,
    };
    let session: LiveSession | undefined;
    const messages = new MessageFactory(record.id, () => deps.clock.now());
    const log = deps.log.child({ session_id: record.id });
    const ctx: EnrichContext = {
      sessionId: record.id,
      options,
      requested: record.requestedOptions,
      coordinator: deps.coordinator,
      messages,
      log,
      emit: (m) => session?.emit(m),
      ...(restored?.enrichers ? { restored: restored.enrichers } : {}),
    };
    const enrichment = new EnrichmentPipeline(await (deps.enrichers ?? createEnrichers)(options, ctx), log);
    let acks: SessionAcks | undefined;
    const frontend = await createAudioFrontend({
      format,
      vad: deps.vad,
      endpointer: {
        endpointing: options.endpointing,
        maxDurationWithoutEndpointing: options.maximum_duration_without_endpointing,
        partialIntervalMs: options.messages_config.receive_partial_transcripts || options.callback ? streamingProfile(options.profile).partialIntervalMs : 0,
        partialOnPause: true,
        ...speechThresholds(options.pre_processing?.speech_threshold),
      },
      onAudio: enrichment.wantsAudio ? (c, samples, time) => enrichment.audio(c, samples, acks!.frontendBase.seconds + time) : undefined,
    });
    const created = SessionAcks.create(format, frontend, (m) => deps.log.warn("ack ledger", { session_id: record.id, detail: m }), restored);
    acks = created.acks;
    const recording = record.recordAudio
      ? createSessionRecording(format, join(deps.recordingsDir, `${record.id}.flac`), restored ? { resume: restored } : {})
      : null;
    session = new LiveSession(deps, record, account, options, format, { messages, log, enrichment, frontend, acks, recording }, restored);
    if (restored) {
      session.attachedOnce = true;
      // What the client may not have received from the previous holder: sent on the first attach.
      session.outlet.restore(restored.held ?? [], restored.unconfirmed ?? []);
      const s = session;
      s.enqueue(() => s.process(created.replay!));
    }
    return session;
  }

  get currentPhase(): SessionPhase {
    return this.phase;
  }

  get attached(): boolean {
    return this.outlet.attached;
  }

  /** Resolves once the session has ended (end_session sent, result stored). */
  ended(): Promise<void> {
    return this.endedPromise ?? this.chain;
  }

  /** A socket connects: the first one starts the recording, later ones resume. */
  attach(sink: SessionSink): void {
    this.outlet.attach(sink);
    this.detachedAt = null;
    this.lastAudioAt = this.deps.clock.now();
    if (!this.attachedOnce) {
      this.attachedOnce = true;
      const now = this.deps.clock.now();
      this.save({ status: "processing", connectedAt: now, updatedAt: now });
      this.emit(this.messages.startSession());
      this.emit(this.messages.startRecording());
    } else {
      if (this.phase === "recording") this.acks.beginResume();
      this.outlet.replay(sink);
    }
    if (this.phase === "ended") sink.close(1000, "session ended");
  }

  /** The socket went away (not closed by the session): the reconnect window starts. */
  detach(sink: SessionSink): void {
    if (!this.outlet.detach(sink)) return;
    this.detachedAt = this.deps.clock.now();
  }

  /** Audio bytes from the client (binary frame or decoded `audio_chunk`). */
  audio(bytes: Uint8Array): void {
    if (this.phase !== "recording") {
      this.error("audio received after stop_recording", "recording_stopped");
      return;
    }
    this.lastAudioAt = this.deps.clock.now();
    const fresh = this.acks.accept(bytes);
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
    const rest = this.acks.endResume();
    if (rest.length > 0) this.accept(rest);
    // Acknowledged once the audio received before it is decoded, so its duration is exact.
    this.enqueue(async () => {
      const total = this.acks.totalDuration();
      this.emit(this.messages.stopRecordingAck(total, total - this.transcribedSeconds()));
    });
    this.endedPromise = this.enqueue(() => this.finish());
  }

  /** Applies the time windows: silence, reconnect window. */
  tick(): void {
    const now = this.deps.clock.now();
    if (this.phase !== "recording") return;
    if (!this.outlet.attached && this.detachedAt !== null && now - this.detachedAt >= RESUME_WINDOW_MS) {
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
    this.checkpoint.close();
    await this.recording?.abort();
    await this.dropCheckpoint();
    await saved;
    this.release();
    this.outlet.close(1011, closeReason);
    this.deps.onEnded?.(this.id);
  }

  /**
   * State for a restarted process, once the audio received so far is processed. It supersedes the
   * crash checkpoint: checkpointing stops (acks not yet covered by one are not sent).
   */
  async snapshot(): Promise<PersistedSession | null> {
    if (this.phase !== "recording") return null;
    await this.chain;
    await this.transcriber.settled();
    this.checkpoint.close();
    await this.checkpoint.idle();
    const transcribed = this.transcribedSeconds();
    return { version: 1, ...this.acks.snapshot(transcribed), ...this.transcriber.snapshot(transcribed), ...this.outlet.pending(), enrichers: this.enrichment.persist() };
  }

  /**
   * Stops processing without ending the session (this gateway stops, or hands the session to another
   * one); closes the socket with `code` (1012 by default: the client reconnects).
   */
  async suspend(code = 1012, reason = "service restarting"): Promise<void> {
    this.phase = "ended";
    this.checkpoint.close();
    this.outlet.close(code, reason);
    this.release();
    await this.recording?.suspend();
  }

  /** Delivers a message (filtered by the session's flags). */
  private emit(message: SessionMessage): void {
    messageSent(this, message);
    this.outlet.emit(message);
  }

  // ── audio path ────────────────────────────────────────────────────────────

  private accept(fresh: Uint8Array): void {
    // The plan's maximum duration: audio past it is not taken, and the recording stops there.
    const { bytes, cut, offset } = this.intake.take(fresh);
    audioArrived(this, this.acks.secondsAt(offset), this.acks.secondsAt(offset + bytes.length));
    this.enqueue(() => this.process(bytes));
    if (cut && this.phase === "recording") this.stop("max_duration");
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(work).catch((e) => this.log.error("session audio path failed", { err: e }));
    return this.chain;
  }

  private async process(bytes: Uint8Array): Promise<void> {
    if (this.phase === "ended") return;
    const events = await this.frontend.push(bytes);
    this.acks.frontendRead();
    this.transcriber.handle(events, this.acks.frontendBase.seconds, this.acks.frontendBase.seconds + this.frontend.durationSeconds);
    this.updateAcks();
  }

  /** Seconds (session time) up to which every utterance is final: the replay point of a restart. */
  private transcribedSeconds(): number {
    return this.acks.transcribedSeconds(this.transcriber.openFrom());
  }

  /** Seconds (session time) up to which the audio is transcribed, finally or speculatively: the ack point. */
  private ackableSeconds(): number {
    return this.acks.transcribedSeconds(this.transcriber.ackableFrom());
  }

  private updateAcks(force = false): void {
    if (this.phase === "ended") return;
    const ack = this.acks.next(this.ackableSeconds(), this.transcribedSeconds(), force);
    if (!ack) return;
    const message = this.messages.audioChunkAck(ack.byteRange, ack.timeRange);
    // Sent once the state to resume at its end is stored (or dropped if the session moves first).
    this.checkpoint.commit(() => {
      if (this.phase === "ended") return;
      this.outlet.confirmUntil(ack.confirmedUntil);
      this.emit(message);
    });
  }

  /** What a checkpoint stores: the state `snapshot` would give now, without waiting for anything. */
  private captureCheckpoint(): CheckpointCapture {
    const transcribed = this.transcribedSeconds();
    const position = this.acks.position(transcribed);
    const { utterances: _u, finalIds, ...recognition } = this.transcriber.snapshot(transcribed);
    const utterances = this.transcriber.utterances;
    return {
      state: { version: 1, ...position, ...recognition, confirmedUntil: position.candidateFinalsUntil[0]!, enrichers: this.enrichment.persist() },
      bytesFrom: (offset) => this.acks.bytesFrom(offset),
      finalCount: utterances.length,
      finalsFrom: (i) => utterances.slice(i).map((utterance, k) => ({ id: finalIds?.[i + k] ?? "", utterance })),
    };
  }

  private async dropCheckpoint(): Promise<void> {
    const { writes, acks, waitMs } = this.checkpoint.stats;
    if (acks > 0) this.log.info("checkpoints", { writes, acks, ack_wait_ms_mean: Math.round((waitMs / acks) * 100) / 100 });
    await this.deps.store.dropCheckpoint(this.id).catch((e) => this.log.error("checkpoint not dropped", { err: e }));
  }

  // ── the end ───────────────────────────────────────────────────────────────

  private async finish(): Promise<void> {
    if (this.phase === "ended") return;
    const events = await this.frontend.flush();
    this.transcriber.handle(events, this.acks.frontendBase.seconds);
    await this.transcriber.settled();
    await this.transcriber.settled(); // finals queued by the flush
    this.updateAcks(true);
    await this.checkpoint.idle();
    this.checkpoint.close();
    if (this.enrichment.active) for (const m of await this.enrichment.finish()) this.emit(m);
    const duration = this.acks.totalDuration();
    const utterances = this.transcriber.utterances;
    this.emit(this.messages.endRecording(duration));
    const result = { ...buildResult(utterances, { audioDurationS: duration, channels: this.format.channels, transcriptionTimeS: this.transcriber.transcriptionTimeS }), ...this.enrichment.result() };
    this.emit(this.messages.postTranscript(buildTranscription(utterances)));
    this.emit(this.messages.postFinalTranscript(result));
    // The final state is stored before the socket closes, so a client reading the session after the
    // close sees it done.
    await storeOutcome(this.deps.store, this.save, this.log, { accountId: this.record.accountId, result, durationS: duration, recording: this.recording }, () => this.deps.clock.now());
    await this.dropCheckpoint();
    this.emit(this.messages.endSession());
    this.phase = "ended";
    this.release();
    this.outlet.close(1000, "session ended");
    this.deps.onEnded?.(this.id);
  }

  /** Frees the front end and the enrichers. */
  private release(): void {
    this.frontend.close();
    this.enrichment.close();
  }
}
