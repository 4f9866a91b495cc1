/**
 * One live session: the phase machine between the client's audio and the server's messages,
 * independent of sockets. A socket attaches (first connection or resume) and detaches; the session
 * survives a drop for the reconnect window.
 *
 *   recording ──stop_recording / silence / max duration / window over──▶ stopping ──▶ ended
 *
 * Audio path (ARCHITECTURE.md): bytes → acks (resume dedup) → intake → front end → transcriber →
 * enrichment → outlet; acknowledgments (`acknowledge.ts`) cover only transcribed audio. The parts
 * are built by `assemble.ts`; this module only sequences them.
 */
import type { AudioFormat } from "../audio/format.ts";
import { audioStreamed } from "../capacity/streamed.ts";
import { audioArrived, messageSent } from "../metrics/index.ts";
import type { AppliedOptions } from "../options/defaults.ts";
import { RESUME_WINDOW_MS, SILENCE_TIMEOUT_MS } from "../session-records/limits.ts";
import type { Account, SessionRecord } from "../store/types.ts";
import type { Acknowledgments } from "./acknowledge.ts";
import type { SessionAcks } from "./acks.ts";
import { assembleSession, type LiveSessionDeps, type SessionParts } from "./assemble.ts";
import { concludeSession, sessionWriter, type SaveSession } from "./finish.ts";
import type { SessionMessage } from "./messages.ts";
import type { Outlet, SessionSink } from "./outlet.ts";
import type { PersistedSession } from "./persist.ts";
import type { Transcriber } from "./transcriber.ts";

export type { SessionSink } from "./outlet.ts";
export type { LiveSessionDeps, Vad } from "./assemble.ts";

export type StopCause = "stop_recording" | "silence" | "max_duration" | "disconnected";
export type SessionPhase = "recording" | "stopping" | "ended";

export class LiveSession {
  readonly id: string;
  readonly options: AppliedOptions;
  readonly format: AudioFormat;
  private phase: SessionPhase = "recording";
  private detachedAt: number | null = null;
  private lastAudioAt: number;
  private attachedOnce = false;
  private readonly save: SaveSession;
  private readonly outlet: Outlet;
  private readonly acks: SessionAcks;
  private readonly transcriber: Transcriber;
  /** The ack point, the replay point, and the checkpoints acks wait for. */
  private readonly acknowledgments: Acknowledgments;

  /** Audio work in arrival order. */
  private chain: Promise<void> = Promise.resolve();
  private endedPromise: Promise<void> | null = null;

  private constructor(
    private readonly deps: LiveSessionDeps,
    private readonly record: SessionRecord,
    private readonly parts: SessionParts,
  ) {
    this.id = record.id;
    this.options = record.appliedOptions;
    ({ format: this.format, acks: this.acks, outlet: this.outlet, acknowledgments: this.acknowledgments, transcriber: this.transcriber } = parts);
    this.lastAudioAt = deps.clock.now();
    this.save = sessionWriter(deps.store, record.id, parts.log);
  }

  /** Builds the session of a stored record; throws on an unusable audio format. */
  static async open(deps: LiveSessionDeps, record: SessionRecord, account: Account, restored?: PersistedSession): Promise<LiveSession> {
    let session: LiveSession | undefined;
    const parts = await assembleSession(deps, record, account, restored, {
      emit: (m) => session?.emit(m),
      error: (message, code) => session?.error(message, code),
      isEnded: () => session?.phase === "ended",
    });
    session = new LiveSession(deps, record, parts);
    if (restored) {
      session.attachedOnce = true;
      // What the client may not have received from the previous holder: sent on the first attach.
      session.outlet.restore(restored.held ?? [], restored.unconfirmed ?? []);
      const s = session;
      s.enqueue(() => s.process(parts.replay!));
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
      this.emit(this.parts.messages.startSession());
      this.emit(this.parts.messages.startRecording());
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
    this.emit(this.parts.messages.error(message, code));
  }

  /** Ends the input: transcribes what is left, sends the closing messages and closes with 1000. */
  stop(cause: StopCause): void {
    if (this.phase !== "recording") {
      if (cause === "stop_recording") this.error("recording already stopped", "recording_stopped");
      return;
    }
    this.phase = "stopping";
    this.parts.log.info("recording stopped", { cause });
    const rest = this.acks.endResume();
    if (rest.length > 0) this.accept(rest);
    // Acknowledged once the audio received before it is decoded, so its duration is exact.
    this.enqueue(async () => {
      const total = this.acks.totalDuration();
      this.emit(this.parts.messages.stopRecordingAck(total, total - this.acknowledgments.transcribedSeconds()));
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
    this.acknowledgments.checkpoint.close();
    await this.parts.recording?.abort();
    await this.acknowledgments.drop();
    await saved;
    this.release();
    this.outlet.close(1011, closeReason);
    this.deps.onEnded?.(this.id);
  }

  /** State for a restarted process, once the audio received so far is processed (`Acknowledgments.resumeState`). */
  async snapshot(): Promise<PersistedSession | null> {
    if (this.phase !== "recording") return null;
    await this.chain;
    return this.acknowledgments.resumeState();
  }

  /**
   * Stops processing without ending the session (this gateway stops, or hands the session to another
   * one); closes the socket with `code` (1012 by default: the client reconnects).
   */
  async suspend(code = 1012, reason = "service restarting"): Promise<void> {
    this.phase = "ended";
    this.acknowledgments.checkpoint.close();
    this.outlet.close(code, reason);
    this.release();
    await this.parts.recording?.suspend();
  }

  /** Delivers a message (filtered by the session's flags). */
  private emit(message: SessionMessage): void {
    messageSent(this, message);
    this.outlet.emit(message);
  }

  private accept(fresh: Uint8Array): void {
    // The plan's maximum duration: audio past it is not taken, and the recording stops there.
    const { bytes, cut, offset } = this.parts.intake.take(fresh);
    const [from, until] = [this.acks.secondsAt(offset), this.acks.secondsAt(offset + bytes.length)];
    audioArrived(this, from, until);
    audioStreamed(this.options.model, until - from);
    this.enqueue(() => this.process(bytes));
    if (cut && this.phase === "recording") this.stop("max_duration");
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(work).catch((e) => this.parts.log.error("session audio path failed", { err: e }));
    return this.chain;
  }

  private async process(bytes: Uint8Array): Promise<void> {
    if (this.phase === "ended") return;
    const events = await this.parts.frontend.push(bytes);
    this.acks.frontendRead();
    this.transcriber.handle(events, this.acks.frontendBase.seconds, this.acks.frontendBase.seconds + this.parts.frontend.durationSeconds);
    this.acknowledgments.update();
  }

  private async finish(): Promise<void> {
    if (this.phase === "ended") return;
    const events = await this.parts.frontend.flush();
    this.transcriber.handle(events, this.acks.frontendBase.seconds);
    await this.transcriber.settled();
    await this.transcriber.settled(); // finals queued by the flush
    await this.acknowledgments.last();
    await concludeSession(this.parts, (m) => this.emit(m), { store: this.deps.store, save: this.save, accountId: this.record.accountId, now: () => this.deps.clock.now() });
    await this.acknowledgments.drop();
    this.emit(this.parts.messages.endSession());
    this.phase = "ended";
    this.release();
    this.outlet.close(1000, "session ended");
    this.deps.onEnded?.(this.id);
  }

  /** Frees the front end and the enrichers. */
  private release(): void {
    this.parts.frontend.close();
    this.parts.enrichment.close();
  }
}
